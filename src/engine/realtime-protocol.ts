// The realtime session protocol (docs/realtime-protocol.md) as a pure adapter: socket text frames
// in → session calls; engine events → JSON frames out. The WebSocket route
// (/api/v1/sessions/{id}/realtime?token=…, api/routes/realtime.routes.ts) only moves strings
// between a socket and this class, so the protocol is tested without sockets.
import {
  dialDtmfMessage,
  takesWebRtc,
  WebPeerError,
  type DialDtmfMessage,
  type IceServer,
} from '../channels/web-media.js';
import type { EngineEvent, LatencyBreakdown, SessionEndReason, SessionStatus } from './events.js';
import { SessionNotActiveError, type LiveSession } from './session-runtime.js';
import { badTextReason } from '../shared/text.js';

export const PROTOCOL_VERSION = 1;
const MAX_TEXT_CHARS = 4000;
const DTMF = /^[0-9*#A-D]{1,32}$/;
/** Longest frame taken, in bytes: an SDP offer is ~3-6 KB; anything past this is refused. */
export const MAX_FRAME_BYTES = 64 * 1024;
const MAX_CANDIDATE_CHARS = 1024;

export type ClientMessage =
  | { type: 'user_text'; text: string }
  | { type: 'dtmf'; digits: string }
  | { type: 'end' }
  | { type: 'ping'; id?: string }
  | { type: 'webrtc_offer'; sdp: string }
  | { type: 'ice_candidate'; candidate: string | null; sdp_mid?: string };

export type ServerMessage =
  | {
      type: 'ready';
      protocol: number;
      session_id: string;
      status: SessionStatus;
      /** Sessions that take WebRTC: the STUN/TURN servers the browser should use. */
      ice_servers?: readonly IceServer[];
    }
  | { type: 'webrtc_answer'; sdp: string }
  | {
      type: 'assistant_text';
      text: string;
      agent_name?: string;
      latency_ms?: number;
      latency?: LatencyBreakdown;
    }
  | { type: 'user_text'; text: string }
  /**
   * The user cut the last assistant_text short: not all of it was heard. `heard_chars`: its first
   * that many characters were (an estimate from the audio sent), when known.
   */
  | { type: 'assistant_interrupted'; heard_chars?: number }
  | { type: 'node'; event: 'entered' | 'exited'; node_id: string; node_type: string; handle?: string }
  /** The party a `dial` node bridged to the browser pressed keys (the leg's call id). */
  | DialDtmfMessage
  | { type: 'status'; status: SessionStatus; execution_status?: string }
  | { type: 'ended'; end_reason: SessionEndReason; duration_seconds: number }
  | { type: 'error'; code: string; message: string }
  | { type: 'pong'; id?: string };

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; code: string; message: string };

/** Validates one client frame. Unknown fields are ignored; unknown types are refused. */
export function parseClientMessage(raw: string): ParseResult {
  if (raw.length > MAX_FRAME_BYTES || Buffer.byteLength(raw) > MAX_FRAME_BYTES) {
    return {
      ok: false,
      code: 'frame_too_large',
      message: `Frames must be at most ${MAX_FRAME_BYTES} bytes.`,
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'invalid_json', message: 'Frames must be JSON objects.' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, code: 'invalid_json', message: 'Frames must be JSON objects.' };
  }
  const m = data as Record<string, unknown>;
  switch (m.type) {
    case 'user_text':
      if (typeof m.text !== 'string' || m.text.trim() === '' || m.text.length > MAX_TEXT_CHARS) {
        return {
          ok: false,
          code: 'invalid_message',
          message: `text must be 1 to ${MAX_TEXT_CHARS} characters.`,
        };
      }
      if (badTextReason(m.text)) {
        return { ok: false, code: 'invalid_message', message: `text ${badTextReason(m.text)}.` };
      }
      return { ok: true, message: { type: 'user_text', text: m.text } };
    case 'dtmf':
      if (typeof m.digits !== 'string' || !DTMF.test(m.digits)) {
        return { ok: false, code: 'invalid_message', message: 'digits must be 1 to 32 of 0-9 * # A-D.' };
      }
      return { ok: true, message: { type: 'dtmf', digits: m.digits } };
    case 'end':
      return { ok: true, message: { type: 'end' } };
    case 'ping':
      return { ok: true, message: typeof m.id === 'string' ? { type: 'ping', id: m.id } : { type: 'ping' } };
    case 'webrtc_offer':
      if (typeof m.sdp !== 'string' || m.sdp.trim() === '') {
        return { ok: false, code: 'invalid_message', message: 'sdp must be a string holding the offer.' };
      }
      return { ok: true, message: { type: 'webrtc_offer', sdp: m.sdp } };
    case 'ice_candidate': {
      const c = m.candidate;
      if (c !== null && (typeof c !== 'string' || c.length > MAX_CANDIDATE_CHARS)) {
        return {
          ok: false,
          code: 'invalid_message',
          message: `candidate must be a string of at most ${MAX_CANDIDATE_CHARS} characters, or null.`,
        };
      }
      if (m.sdp_mid !== undefined && m.sdp_mid !== null && typeof m.sdp_mid !== 'string') {
        return { ok: false, code: 'invalid_message', message: 'sdp_mid must be a string.' };
      }
      return {
        ok: true,
        message: {
          type: 'ice_candidate',
          candidate: c,
          ...(typeof m.sdp_mid === 'string' ? { sdp_mid: m.sdp_mid } : {}),
        },
      };
    }
    default:
      return { ok: false, code: 'unknown_type', message: `Unknown message type ${JSON.stringify(m.type)}.` };
  }
}

/** An engine event as the frame a client sees, or null for events that stay server-side. */
export function toServerMessage(event: EngineEvent): ServerMessage | null {
  switch (event.type) {
    case 'message':
      if (event.role === 'assistant') {
        return {
          type: 'assistant_text',
          text: event.content,
          ...(event.agent_name !== undefined ? { agent_name: event.agent_name } : {}),
          ...(event.latency_ms !== undefined ? { latency_ms: Math.round(event.latency_ms) } : {}),
          ...(event.latency !== undefined ? { latency: event.latency } : {}),
        };
      }
      return event.role === 'user' ? { type: 'user_text', text: event.content } : null;
    case 'message.interrupted':
      return event.heard_chars === undefined
        ? { type: 'assistant_interrupted' }
        : { type: 'assistant_interrupted', heard_chars: event.heard_chars };
    case 'node.entered':
      return { type: 'node', event: 'entered', node_id: event.node_id, node_type: event.node_type };
    case 'node.exited':
      return {
        type: 'node',
        event: 'exited',
        node_id: event.node_id,
        node_type: event.node_type,
        handle: event.handle,
      };
    case 'dial.dtmf':
      return dialDtmfMessage(event.digits, event.call_id);
    case 'session.status':
      return { type: 'status', status: event.status };
    case 'execution.completed':
    case 'execution.failed':
    case 'execution.transferred':
    case 'execution.cancelled':
      return { type: 'status', status: 'active', execution_status: event.status };
    case 'session.ended':
      return { type: 'ended', end_reason: event.end_reason, duration_seconds: event.duration_seconds };
    default:
      return null;
  }
}

export interface RealtimeConnectionOptions {
  /**
   * Frames that arrived while the join was under way: handled after `ready` and before the
   * session starts, so an offer sent with the socket's opening makes the greeting audible.
   */
  initialFrames?: string[];
  /** Starts a pending session when the client connects (default true). */
  startOnConnect?: boolean;
  /**
   * The client joins with a microphone (`media=webrtc` on the socket's URL): a pending session
   * starts once its peer connection is up, so the greeting is heard rather than shown, or at the
   * first typed turn or key. A connection that fails ends the session (media_failed).
   */
  awaitMedia?: boolean;
  /** Ends the session with client_disconnected when the socket closes (default true). */
  endOnClose?: boolean;
  /** Called right after the `ended` frame was sent: the route closes the socket (1000). */
  onEnded?: () => void;
  /**
   * Resolves once the session's end is stored (its row, usage and session.ended event). The
   * `ended` frame waits for it, so a client that reads the session on `ended` finds it ended.
   */
  endStored?: () => Promise<unknown>;
}

/**
 * How many sockets are attached to each live session: a second socket joins the same session, and
 * the session ends with client_disconnected only when the last one goes, so a second tab (or a
 * monitor) closing does not end the conversation under the first.
 */
const attached = new WeakMap<LiveSession, number>();

/** One client socket attached to one live session. */
export class RealtimeConnection {
  private readonly unsubscribe: () => void;
  private closed = false;
  /** Set while a media join waits for its peer connection before starting the session. */
  private deferStart = false;

  constructor(
    private readonly session: LiveSession,
    private readonly send: (frame: string) => void,
    private readonly options: RealtimeConnectionOptions = {},
  ) {
    this.unsubscribe = session.subscribe((event) => {
      const msg = toServerMessage(event);
      if (event.type === 'session.ended') {
        this.unsubscribe();
        const stored = this.options.endStored?.().catch(() => undefined) ?? Promise.resolve();
        void stored.then(() => {
          if (msg) this.emit(msg);
          this.options.onEnded?.();
        });
        return;
      }
      if (msg) this.emit(msg);
    });
    attached.set(session, (attached.get(session) ?? 0) + 1);
    const channel = session.channel;
    this.emit({
      type: 'ready',
      protocol: PROTOCOL_VERSION,
      session_id: session.id,
      status: session.status,
      ...(takesWebRtc(channel) ? { ice_servers: channel.iceServers } : {}),
    });
    this.deferStart = (options.awaitMedia ?? false) && takesWebRtc(channel);
    for (const frame of options.initialFrames ?? []) this.receive(frame);
    if ((options.startOnConnect ?? true) && !this.deferStart && !this.closed) session.start();
  }

  /** One text frame from the client. */
  receive(raw: string): void {
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return this.emit({ type: 'error', code: parsed.code, message: parsed.message });
    const m = parsed.message;
    // Typed input starts a session still waiting for its microphone: nobody is left unanswered.
    if (this.deferStart && (m.type === 'user_text' || m.type === 'dtmf')) this.startNow();
    try {
      if (m.type === 'user_text') this.session.sendText(m.text);
      else if (m.type === 'dtmf') this.session.sendDtmf(m.digits);
      else if (m.type === 'end') void this.session.end('client_ended');
      else if (m.type === 'webrtc_offer') this.offer(m.sdp);
      else if (m.type === 'ice_candidate') this.signalling().addIceCandidate(m.candidate, m.sdp_mid);
      else this.emit(m.id !== undefined ? { type: 'pong', id: m.id } : { type: 'pong' });
    } catch (err) {
      this.refuse(err);
    }
  }

  /** Answers the browser's offer; a refusal is an `error` frame and leaves the session as it was. */
  private offer(sdp: string): void {
    const signalling = this.signalling();
    signalling.acceptOffer(sdp).then(
      (answer) => {
        this.emit({ type: 'webrtc_answer', sdp: answer });
        if (this.deferStart) void signalling.whenMediaConnected().then((up) => up && this.startNow());
      },
      (err: unknown) => this.refuse(err),
    );
  }

  private startNow(): void {
    this.deferStart = false;
    if (!this.closed && this.session.status === 'pending') this.session.start();
  }

  private signalling() {
    if (this.session.status === 'ended') throw new SessionNotActiveError(this.session.id);
    const channel = this.session.channel;
    if (!takesWebRtc(channel)) {
      throw new WebPeerError('unsupported', `The ${channel.kind} channel of this session carries no audio.`);
    }
    return channel;
  }

  private refuse(err: unknown): void {
    const code =
      err instanceof SessionNotActiveError
        ? 'session_ended'
        : err instanceof WebPeerError
          ? err.code
          : 'unsupported';
    this.emit({ type: 'error', code, message: (err as Error).message });
  }

  /** The socket closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    const left = (attached.get(this.session) ?? 1) - 1;
    attached.set(this.session, left);
    if ((this.options.endOnClose ?? true) && left === 0 && this.session.status !== 'ended') {
      void this.session.end('client_disconnected');
    }
  }

  private emit(msg: ServerMessage): void {
    if (!this.closed) this.send(JSON.stringify(msg));
  }
}
