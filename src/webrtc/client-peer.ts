// The browser's side of a web session's peer connection, in Node: offers one sendrecv audio line
// (Opus, optionally G.711 ranked first) and a data channel, sends PCM as paced 20 ms RTP frames,
// and hands back what it hears as 16 kHz PCM. The benchmark's browsers (a second process) and the
// tests that join web sessions without Chromium run on it; a headless client (a load generator,
// a voice bot calling a workflow) could too.
import nodeDataChannel, { type DataChannel, type PeerConnection, type Track } from 'node-datachannel';
import type { AudioCodec } from '../audio/codecs/audio-codec.js';
import { G711Codec } from '../audio/codecs/g711.js';
import { OpusCodec } from '../audio/codecs/opus.js';
import { PipelineCodec } from '../audio/codecs/pipeline-codec.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { isRtcp } from '../telephony/media/rtcp.js';
import { decodeRtp, RtpPacket, RtpStatus } from '../telephony/media/rtp-packet.js';
import { MediaReceiver } from '../telephony/media/rtp-receiver.js';
import { RtpSender } from '../telephony/media/rtp-sender.js';
import type { SharedPacer } from '../telephony/media/shared-pacer.js';
import type { IceServer } from '../channels/web-media.js';

export interface ClientPeerOptions {
  clock?: Clock;
  /** Address to gather host candidates on. */
  host?: string;
  /** Formats in offer order; Opus is always offered (the service requires it). */
  prefer?: 'opus' | 'PCMU' | 'PCMA';
  dataChannel?: boolean;
  pacer?: SharedPacer;
  /** Called for every received audio frame (16 kHz), with the arrival time (clock.monotonic()). */
  onAudio?: (pcm: Int16Array, at: number) => void;
  /** Called for every RTP packet received, before the jitter buffer (arrival, monotonic). */
  onPacket?: (at: number) => void;
  /** STUN/TURN servers as a browser takes them (the `ready` frame's `ice_servers`). */
  iceServers?: readonly IceServer[];
  /** Gather relay candidates only (a browser's `iceTransportPolicy: 'relay'`): TURN or nothing. */
  relayOnly?: boolean;
}

const PAYLOAD = { opus: 111, PCMU: 0, PCMA: 8 } as const;
const EVENT_PT = 126;

export class ClientPeer {
  readonly pc: PeerConnection;
  private readonly track: Track;
  private readonly data: DataChannel | null;
  private readonly clock: Clock;
  private sender: RtpSender | null = null;
  private receiver: MediaReceiver | null = null;
  private readonly packet = new RtpPacket();
  private readonly messages: string[] = [];
  private readonly stateWaiters: (() => void)[] = [];
  private readonly gathered: Promise<void>;
  private closed = false;
  state = 'new';
  readonly counters = { packetsIn: 0, packetsOut: 0 };

  constructor(private readonly options: ClientPeerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    // Negotiation is ours to start: the data channel would otherwise start it before we listen.
    this.pc = new nodeDataChannel.PeerConnection('browser', {
      iceServers: (options.iceServers ?? []).flatMap(toLibraryIceServers),
      ...(options.relayOnly ? { iceTransportPolicy: 'relay' as const } : {}),
      bindAddress: options.host ?? '127.0.0.1',
      disableAutoNegotiation: true,
    });
    this.gathered = new Promise((resolve) => {
      this.pc.onGatheringStateChange((s) => {
        if (s === 'complete') resolve();
      });
    });
    this.pc.onStateChange((s) => {
      this.state = s;
      for (const w of this.stateWaiters.splice(0)) w();
    });
    const audio = new nodeDataChannel.Audio('0', 'SendRecv');
    const prefer = options.prefer ?? 'opus';
    if (prefer !== 'opus') audio.addAudioCodec(PAYLOAD[prefer], `${prefer}/8000`);
    audio.addOpusCodec(PAYLOAD.opus);
    if (prefer === 'opus') audio.addAudioCodec(EVENT_PT, 'telephone-event/48000');
    audio.addSSRC(0x5eed, 'browser', 'browser-stream', 'browser-mic');
    this.track = this.pc.addTrack(audio);
    this.track.onMessage((buf) => this.onPacket(buf));
    this.data = options.dataChannel === false ? null : this.pc.createDataChannel('keys');
    this.data?.onMessage((m) =>
      this.messages.push(typeof m === 'string' ? m : Buffer.from(m as Buffer).toString()),
    );
  }

  /**
   * The offer, without candidates: they are trickled (candidates()) once the answer is in. Why:
   * with candidates inside, the service's checks reach this peer before it has the answer, its
   * ICE is up the moment the answer lands, and libdatachannel then starts DTLS before it has
   * stored the answer's fingerprint, failing about one connection in thirty. A browser has no
   * such race; trickling keeps this stand-in honest without it.
   */
  async offer(): Promise<string> {
    this.pc.setLocalDescription('offer');
    if (this.pc.gatheringState() !== 'complete') await this.gathered;
    const sdp = this.pc.localDescription()!.sdp;
    const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
    const lines = sdp.split(eol);
    this.localCandidates = lines.filter((l) => l.startsWith('a=candidate:')).map((l) => l.slice(2));
    return lines.filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates').join(eol);
  }

  /** The host candidates left out of the offer, as `ice_candidate` frames carry them (mid "0"). */
  candidates(): string[] {
    return [...this.localCandidates];
  }

  private localCandidates: string[] = [];

  /** Takes the service's answer and starts media in the codec it chose. */
  accept(answer: string): void {
    const pt = Number(/^m=audio \d+ \S+ (\d+)/m.exec(answer)?.[1] ?? PAYLOAD.opus);
    const codec: AudioCodec =
      pt === PAYLOAD.PCMU
        ? new G711Codec('ulaw')
        : pt === PAYLOAD.PCMA
          ? new G711Codec('alaw')
          : new OpusCodec();
    const { pacer } = this.options;
    this.sender = new RtpSender({
      clock: this.clock,
      codec: new PipelineCodec(codec),
      ssrc: 0x5eed,
      sequence: 1000,
      timestamp: 50_000,
      payloadType: pt,
      telephoneEventPayloadType: EVENT_PT,
      // A microphone never stops: between words it sends silence, which is what ends a turn.
      idle: 'silence',
      transmit: (b) => {
        if (this.track.isOpen()) {
          this.counters.packetsOut++;
          this.track.sendMessageBinary(b);
        }
      },
      ...(pacer ? { pacer } : {}),
    });
    this.receiver = new MediaReceiver({
      clock: this.clock,
      codec: new PipelineCodec(codec),
      payloadType: pt,
      telephoneEventPayloadType: EVENT_PT,
      ...(pacer ? { pacer } : {}),
      onAudio: (pcm) => this.options.onAudio?.(pcm, this.clock.monotonic()),
    });
    this.pc.setRemoteDescription(answer, 'answer');
  }

  /** Resolves once connected; rejects when the connection fails or closes first. */
  async connected(): Promise<void> {
    for (;;) {
      if (this.state === 'connected') break;
      if (this.state === 'failed' || this.state === 'closed')
        throw new Error(`peer connection ${this.state}`);
      await new Promise<void>((resolve) => this.stateWaiters.push(resolve));
    }
    this.sender?.start();
    this.receiver?.start();
    if (this.data) await this.dataOpen(this.data);
  }

  /**
   * The data channel's open. The listener goes on before isOpen() is asked: the channel opens on
   * libdatachannel's thread, and one that opened between a check and a later listener would
   * leave this waiting for good. A connection that fails or closes first rejects.
   */
  private dataOpen(data: DataChannel): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      data.onOpen(() => resolve());
      if (data.isOpen()) return resolve();
      const gone = (): void => {
        if (this.state === 'failed' || this.state === 'closed') {
          reject(new Error(`peer connection ${this.state} before its data channel opened`));
        } else if (!data.isOpen()) this.stateWaiters.push(gone);
      };
      this.stateWaiters.push(gone);
    });
  }

  /** Waits for the connection to reach `state` (e.g. 'closed' after the service ends it). */
  async until(state: string): Promise<void> {
    while (this.state !== state) await new Promise<void>((resolve) => this.stateWaiters.push(resolve));
  }

  /** Queues 16 kHz PCM to be sent as paced frames (speech into the microphone). */
  speak(pcm: Int16Array): void {
    this.sender?.enqueue(pcm);
  }

  get queuedMs(): number {
    return this.sender?.queuedMs ?? 0;
  }

  /** Sends a message on the data channel (keypad frames). */
  send(message: string): void {
    this.data?.sendMessage(message);
  }

  /** Keys as RFC 4733 events, as RTCDTMFSender sends them. */
  pressKeys(digits: string): Promise<void> {
    return this.sender?.sendDigits(digits) ?? Promise.resolve();
  }

  /** Data-channel messages received so far (the service's `error` answers). */
  get received(): readonly string[] {
    return this.messages;
  }

  get skippedFrames(): number {
    return this.sender?.stats.skippedFrames ?? 0;
  }

  /** Frames this stand-in had to send whose time passed unsent (its frame clock stalled). */
  get holeFrames(): number {
    return this.sender?.stats.holeFrames ?? 0;
  }

  /** Audio frames sent so far. */
  get framesSent(): number {
    return this.sender?.stats.packets ?? 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sender?.stop();
    this.receiver?.stop();
    this.pc.close();
  }

  /** The kind of local candidate the connection runs on (`host`, `srflx`, `relay`), once connected. */
  selectedCandidateType(): string | null {
    return this.pc.getSelectedCandidatePair()?.local.type ?? null;
  }

  private onPacket(buf: Buffer): void {
    if (this.closed || !this.receiver || isRtcp(buf)) return;
    if (decodeRtp(buf, this.packet) !== RtpStatus.Ok) return;
    this.counters.packetsIn++;
    const at = this.clock.monotonic();
    this.options.onPacket?.(at);
    this.receiver.handle(this.packet, at);
  }
}

/**
 * An RTCIceServer in libdatachannel's terms: one entry per URL, `stun:host[:port]` or
 * `turn(s):host[:port][?transport=udp|tcp]` with the server's username and credential.
 */
export function toLibraryIceServers(server: IceServer): (string | nodeDataChannel.IceServer)[] {
  const urls = typeof server.urls === 'string' ? [server.urls] : server.urls;
  return urls.map((url) => {
    const m = /^(stun|turns?):([^?]+?)(?::(\d+))?(?:\?transport=(udp|tcp))?$/.exec(url);
    if (!m) throw new Error(`Not a STUN or TURN URL: ${url}`);
    const [, scheme, hostname, port, transport] = m;
    if (scheme === 'stun') return `stun:${hostname}:${port ?? 3478}`;
    return {
      hostname: hostname!,
      port: Number(port ?? (scheme === 'turns' ? 5349 : 3478)),
      ...(server.username !== undefined ? { username: server.username } : {}),
      ...(server.credential !== undefined ? { password: server.credential } : {}),
      relayType: scheme === 'turns' ? 'TurnTls' : transport === 'tcp' ? 'TurnTcp' : 'TurnUdp',
    };
  });
}
