// The web channel's MediaPort: what the voice pipeline plays goes to the browser's peer
// connection once there is one, the browser's audio comes from it, and keypad digits come from
// both the realtime socket (`dtmf` frames) and the peer (data-channel messages, RFC 4733). The
// pipeline is built once, with the session, on this line; the peer is attached when the browser's
// offer is answered and detached when it ends, so nothing of the pipeline changes in between.
//
// A `dial` node's leg takes the line through `legLine()` (a WebLegLine): it plays and hears the
// peer directly, and while it is bridged the line is suspended (the pipeline's playback is
// dropped and its listeners hear nothing) and key presses are diverted to the leg. The dialled
// party's key presses go the other way: to the browser's data channels as `dial_dtmf` messages,
// and to the `dial` node, which reports them on the socket.
import type { CallMedia } from './call-media.js';
import { Listeners } from '../shared/listeners.js';
import { dialDtmfMessage, type WebLegLine, type WebPeer } from './web-media.js';

export class WebLine implements CallMedia {
  private peer: WebPeer | null = null;
  private unsubscribe: (() => void)[] = [];
  private readonly audio = new Listeners<Int16Array>();
  /** The leg's listeners: every frame, suspended or not. */
  private readonly raw = new Listeners<Int16Array>();
  private readonly digits = new Listeners<string>();
  /** While set, every press goes here instead of the listeners (a bridged leg). */
  private diverted: ((digit: string) => void) | null = null;
  /** Set while a dialled leg is bridged: the pipeline's playback is dropped, its input unheard. */
  suspended = false;

  attach(peer: WebPeer): void {
    this.detach();
    this.peer = peer;
    this.unsubscribe = [
      peer.onAudio((pcm) => {
        this.raw.emit(pcm);
        if (this.suspended) return;
        this.audio.emit(pcm);
      }),
      peer.onDigit((d) => this.pushDigit(d)),
    ];
  }

  detach(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.peer?.stopPlayback();
    this.peer = null;
  }

  /** One key press from the socket (the peer's arrive through attach). */
  pushDigit(digit: string): void {
    if (this.diverted) return this.diverted(digit);
    if (this.suspended) return;
    this.digits.emit(digit);
  }

  play(pcm: Int16Array): void {
    if (this.suspended) return;
    this.peer?.play(pcm);
  }

  get queuedMs(): number {
    return this.peer?.queuedMs ?? 0;
  }

  stopPlayback(): void {
    this.peer?.stopPlayback();
  }

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    return this.audio.add(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    return this.digits.add(listener);
  }

  /** The line as a dialled leg uses it (see the top); `onPartyDigit` hears the party's keys. */
  legLine(onPartyDigit?: (digit: string, callId: string) => void): WebLegLine {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const line = this;
    return {
      play: (pcm) => this.peer?.play(pcm),
      get queuedMs() {
        return line.queuedMs;
      },
      stopPlayback: () => this.stopPlayback(),
      onAudio: (listener) => this.raw.add(listener),
      partyDigit: (digit, callId) => {
        this.peer?.sendData(JSON.stringify(dialDtmfMessage(digit, callId)));
        onPartyDigit?.(digit, callId);
      },
      divertDigits: (listener) => {
        this.diverted = listener;
        return () => {
          if (this.diverted === listener) this.diverted = null;
        };
      },
      suspend: () => {
        this.stopPlayback();
        this.suspended = true;
      },
      resume: () => {
        this.suspended = false;
      },
    };
  }
}
