// One browser call into a web session: the join-info check, the microphone, the realtime socket
// and the WebRTC peer negotiated over it (docs/realtime-protocol.md, "Browser voice").
//
// Order matters for clear failures: the token is checked first (an expired link is told as such
// before any microphone prompt), then the microphone (a refusal is told as such before a session
// starts), then the socket and the peer. Digits go on the socket: it is reliable and ordered, and
// the service takes them there exactly as from a data channel.

export type JoinErrorCode =
  | 'token_missing'
  | 'token_expired'
  | 'token_invalid'
  | 'session_ended'
  | 'microphone_denied'
  | 'microphone_missing'
  | 'unsupported_browser'
  | 'network'
  | 'refused';

/** Why a call could not start; `message` is meant for the person at the microphone. */
export class JoinError extends Error {
  constructor(
    readonly code: JoinErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'JoinError';
  }
}

export interface JoinInfo {
  session_id: string;
  status: string;
  end_reason: string | null;
  realtime_url: string;
  join_token_expires_at: string;
  ice_servers: RTCIceServer[];
}

export interface JoinOptions {
  /** The session's join token (`join_token` of POST /sessions). */
  token: string;
  /** The service's origin, e.g. `https://voice.example.com`; default: this page's origin. */
  baseUrl?: string;
  /** Microphone constraints; default: echo cancellation and noise suppression on. */
  audio?: MediaTrackConstraints;
  /** Where the workflow's audio plays; default: a new, unattached <audio> element. */
  audioElement?: HTMLAudioElement;
  /** `relay` forces TURN (WEBRTC_ICE_SERVERS must hold one); default `all`. */
  iceTransportPolicy?: RTCIceTransportPolicy;
}

export type CallStatus = 'connecting' | 'connected' | 'ended';

export interface TranscriptEntry {
  role: 'assistant' | 'user';
  text: string;
  /** The assistant's first output after a user turn: ms from the end of that turn. */
  latencyMs?: number;
  agentName?: string;
  /** The assistant's words the user cut short (spoke, pressed a key): not all were heard. */
  interrupted?: boolean;
  /**
   * Of an interrupted entry, when the service could tell: the user heard the first `heardChars`
   * characters of `text` (ending on a whole word; an estimate from the share of its audio played).
   */
  heardChars?: number;
}

export interface CallEvents {
  status: CallStatus;
  transcript: TranscriptEntry;
  /** The user cut the last assistant entry short (barge-in); the entry now has `interrupted`. */
  interrupted: TranscriptEntry;
  /** The party a `dial` node called (and bridged to this call) pressed a key; `callId` is its leg. */
  partyKeys: { digits: string; callId: string };
  /** The workflow moved: a node was entered or left. */
  node: { event: 'entered' | 'exited'; nodeId: string; nodeType: string; handle?: string };
  ended: { reason: string; durationSeconds?: number };
  /** A frame the service refused, or a peer failure; the call may go on. */
  error: { code: string; message: string };
}

type Listener<K extends keyof CallEvents> = (value: CallEvents[K]) => void;

const DEFAULT_AUDIO: MediaTrackConstraints = {
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
};
/** How long hangUp() waits for the service's `ended` frame before closing anyway. */
const HANGUP_WAIT_MS = 3000;

/** GET /api/v1/join-info: the session behind a join token, or a JoinError saying what is wrong. */
export async function fetchJoinInfo(token: string, baseUrl = window.location.origin): Promise<JoinInfo> {
  let response: Response;
  try {
    response = await fetch(new URL('/api/v1/join-info', baseUrl), {
      headers: { Authorization: `Bearer ${token}` },
      credentials: 'omit',
    });
  } catch {
    throw new JoinError(
      'network',
      'The voice service cannot be reached. Check your connection and try again.',
    );
  }
  const body = (await response.json().catch(() => null)) as { data?: JoinInfo; message?: string } | null;
  if (response.status === 401) {
    const expired = /expired/i.test(body?.message ?? '');
    throw expired
      ? new JoinError('token_expired', 'This call link has expired. Ask for a new one.')
      : new JoinError('token_invalid', 'This call link is not valid.');
  }
  if (response.status === 404) throw new JoinError('session_ended', 'This call no longer exists.');
  if (!response.ok || !body?.data) {
    throw new JoinError('refused', body?.message ?? `The voice service answered ${response.status}.`);
  }
  if (body.data.status === 'ended') throw new JoinError('session_ended', 'This call has already ended.');
  return body.data;
}

async function microphone(audio: MediaTrackConstraints): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new JoinError(
      'unsupported_browser',
      'This browser cannot use a microphone here (it needs a secure https:// page).',
    );
  }
  try {
    return await navigator.mediaDevices.getUserMedia({ audio, video: false });
  } catch (err) {
    const name = (err as DOMException).name;
    if (name === 'NotFoundError' || name === 'OverconstrainedError') {
      throw new JoinError('microphone_missing', 'No microphone was found. Connect one and try again.');
    }
    throw new JoinError(
      'microphone_denied',
      'Microphone access was refused. Allow the microphone for this site (the icon in the address bar) and try again.',
    );
  }
}

/** Checks the token, asks for the microphone, then connects; resolves once the offer is sent. */
export async function joinCall(options: JoinOptions): Promise<WebVoiceCall> {
  if (!options.token) throw new JoinError('token_missing', 'This call link has no token.');
  if (typeof RTCPeerConnection === 'undefined') {
    throw new JoinError('unsupported_browser', 'This browser does not support voice calls (WebRTC).');
  }
  const info = await fetchJoinInfo(options.token, options.baseUrl);
  const mic = await microphone(options.audio ?? DEFAULT_AUDIO);
  const call = new WebVoiceCall(info, options, mic);
  try {
    await call.connect();
  } catch (err) {
    call.close();
    throw err;
  }
  return call;
}

export class WebVoiceCall {
  readonly sessionId: string;
  /** The peer connection, for its statistics (`getStats()`). */
  readonly peerConnection: RTCPeerConnection;
  /** Where the workflow's audio plays. */
  readonly audioElement: HTMLAudioElement;
  readonly transcript: TranscriptEntry[] = [];
  status: CallStatus = 'connecting';
  private socket: WebSocket | null = null;
  private readonly listeners = new Map<keyof CallEvents, Set<Listener<never>>>();
  private endedWith: CallEvents['ended'] | null = null;

  constructor(
    private readonly info: JoinInfo,
    private readonly options: JoinOptions,
    readonly microphone: MediaStream,
  ) {
    this.sessionId = info.session_id;
    this.audioElement = options.audioElement ?? document.createElement('audio');
    this.audioElement.autoplay = true;
    this.peerConnection = new RTCPeerConnection({
      iceServers: info.ice_servers,
      iceTransportPolicy: options.iceTransportPolicy ?? 'all',
    });
  }

  on<K extends keyof CallEvents>(type: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /** Keypad keys (`0-9 * # A-D`), as a phone's keypad would send them. */
  sendDigits(digits: string): void {
    this.send({ type: 'dtmf', digits });
  }

  /** Mutes or unmutes the microphone (the session hears silence meanwhile). */
  setMuted(muted: boolean): void {
    for (const track of this.microphone.getAudioTracks()) track.enabled = !muted;
  }

  /** Ends the session (`client_ended`) and resolves with its end once the service confirms it. */
  async hangUp(): Promise<CallEvents['ended']> {
    if (this.endedWith) return this.endedWith;
    const ended = new Promise<CallEvents['ended']>((resolve) => {
      const stop = this.on('ended', (e) => {
        stop();
        resolve(e);
      });
      setTimeout(() => {
        stop();
        this.finish({ reason: 'client_ended' });
        resolve(this.endedWith!);
      }, HANGUP_WAIT_MS);
    });
    this.send({ type: 'end' });
    return ended;
  }

  /** Closes everything at once, without telling the service (it sees the socket close). */
  close(): void {
    this.socket?.close(1000, 'closed');
    this.peerConnection.close();
    for (const track of this.microphone.getTracks()) track.stop();
  }

  /** @internal Opens the socket and sends the offer. */
  async connect(): Promise<void> {
    const pc = this.peerConnection;
    for (const track of this.microphone.getAudioTracks()) pc.addTrack(track, this.microphone);
    pc.ontrack = (event) => {
      this.audioElement.srcObject = event.streams[0] ?? new MediaStream([event.track]);
      void this.audioElement.play().catch(() => {
        // Autoplay refused (no user gesture yet): the page shows a play button via `error`.
        this.emit('error', { code: 'autoplay_blocked', message: 'Click to hear the call.' });
      });
    };
    pc.onicecandidate = (event) => {
      const c = event.candidate;
      this.send({ type: 'ice_candidate', candidate: c ? c.candidate : null, sdp_mid: c?.sdpMid ?? '0' });
    };
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'connected') this.setStatus('connected');
      if (pc.connectionState === 'failed') {
        this.emit('error', { code: 'peer_failed', message: 'The audio connection failed.' });
        this.finish({ reason: 'peer_failed' });
      }
    };

    const url = new URL(this.info.realtime_url);
    url.searchParams.set('token', this.options.token);
    // The session waits for this call's audio before it starts, so its first words are heard.
    url.searchParams.set('media', 'webrtc');
    const socket = new WebSocket(url);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () =>
        reject(
          new JoinError('network', 'The voice service refused the connection. The link may have expired.'),
        );
    });
    socket.onerror = null;
    socket.onmessage = (event) => this.receive(String(event.data));
    socket.onclose = () => this.finish({ reason: this.endedWith?.reason ?? 'disconnected' });

    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    this.send({ type: 'webrtc_offer', sdp: pc.localDescription?.sdp ?? offer.sdp });
  }

  private receive(text: string): void {
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const str = (k: string): string | undefined =>
      typeof frame[k] === 'string' ? (frame[k] as string) : undefined;
    switch (frame.type) {
      case 'webrtc_answer':
        void this.peerConnection
          .setRemoteDescription({ type: 'answer', sdp: str('sdp') ?? '' })
          .catch((err: Error) => this.emit('error', { code: 'bad_answer', message: err.message }));
        return;
      case 'ice_candidate': {
        const candidate = str('candidate');
        void this.peerConnection
          .addIceCandidate(candidate ? { candidate, sdpMid: str('sdp_mid') ?? '0' } : null)
          .catch(() => {});
        return;
      }
      case 'assistant_text':
      case 'user_text': {
        const entry: TranscriptEntry = {
          role: frame.type === 'assistant_text' ? 'assistant' : 'user',
          text: str('text') ?? '',
          ...(typeof frame.latency_ms === 'number' ? { latencyMs: frame.latency_ms } : {}),
          ...(str('agent_name') ? { agentName: str('agent_name') } : {}),
        };
        this.transcript.push(entry);
        this.emit('transcript', entry);
        return;
      }
      case 'assistant_interrupted': {
        const entry = this.transcript.findLast((e) => e.role === 'assistant');
        if (!entry || entry.interrupted) return;
        entry.interrupted = true;
        if (typeof frame.heard_chars === 'number') entry.heardChars = frame.heard_chars;
        this.emit('interrupted', entry);
        return;
      }
      case 'dial_dtmf':
        this.emit('partyKeys', { digits: str('digits') ?? '', callId: str('call_id') ?? '' });
        return;
      case 'node':
        this.emit('node', {
          event: str('event') === 'exited' ? 'exited' : 'entered',
          nodeId: str('node_id') ?? '',
          nodeType: str('node_type') ?? '',
          ...(str('handle') ? { handle: str('handle') } : {}),
        });
        return;
      case 'ended':
        this.finish({
          reason: str('end_reason') ?? 'ended',
          ...(typeof frame.duration_seconds === 'number' ? { durationSeconds: frame.duration_seconds } : {}),
        });
        return;
      case 'error':
        this.emit('error', {
          code: str('code') ?? 'error',
          message: str('message') ?? 'The service refused a frame.',
        });
        return;
    }
  }

  private send(frame: Record<string, unknown>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  private setStatus(status: CallStatus): void {
    if (this.status === status || this.status === 'ended') return;
    this.status = status;
    this.emit('status', status);
  }

  private finish(ended: CallEvents['ended']): void {
    if (this.endedWith) return;
    this.endedWith = ended;
    this.setStatus('ended');
    this.emit('ended', ended);
    this.close();
  }

  private emit<K extends keyof CallEvents>(type: K, value: CallEvents[K]): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as Listener<K>)(value);
  }
}
