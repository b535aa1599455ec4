// The web channel's MediaPort: what the voice pipeline plays goes to the browser's peer
// connection once there is one, the browser's audio comes from it, and keypad digits come from
// both the realtime socket (`dtmf` frames) and the peer (data-channel messages, RFC 4733). The
// pipeline is built once, with the session, on this line; the peer is attached when the browser's
// offer is answered and detached when it ends, so nothing of the pipeline changes in between.
import type { CallMedia } from './call-media.js';
import type { WebPeer } from './web-media.js';

export class WebLine implements CallMedia {
  private peer: WebPeer | null = null;
  private unsubscribe: (() => void)[] = [];
  private readonly audio = new Set<(pcm: Int16Array) => void>();
  private readonly digits = new Set<(digit: string) => void>();

  attach(peer: WebPeer): void {
    this.detach();
    this.peer = peer;
    this.unsubscribe = [
      peer.onAudio((pcm) => {
        for (const l of [...this.audio]) l(pcm);
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
    for (const l of [...this.digits]) l(digit);
  }

  play(pcm: Int16Array): void {
    this.peer?.play(pcm);
  }

  get queuedMs(): number {
    return this.peer?.queuedMs ?? 0;
  }

  stopPlayback(): void {
    this.peer?.stopPlayback();
  }

  onAudio(listener: (pcm: Int16Array) => void): () => void {
    this.audio.add(listener);
    return () => void this.audio.delete(listener);
  }

  onDigit(listener: (digit: string) => void): () => void {
    this.digits.add(listener);
    return () => void this.digits.delete(listener);
  }
}
