// Cuts audio that arrives in pieces of any length into frames of one size, keeping the remainder
// for the next piece: the detectors (answering machine, beep) judge fixed frames whatever the
// packetisation of the stream that feeds them.
export class FrameCutter {
  private carry: Int16Array = new Int16Array(0);

  constructor(readonly frameSamples: number) {}

  /**
   * Hands `onFrame` each whole frame of what has arrived, in order, until it returns true (done:
   * the rest of what has arrived is dropped).
   */
  push(pcm: Int16Array, onFrame: (frame: Int16Array) => boolean): void {
    let data = pcm;
    if (this.carry.length > 0) {
      data = new Int16Array(this.carry.length + pcm.length);
      data.set(this.carry);
      data.set(pcm, this.carry.length);
    }
    let at = 0;
    for (; at + this.frameSamples <= data.length; at += this.frameSamples) {
      if (onFrame(data.subarray(at, at + this.frameSamples))) {
        this.carry = new Int16Array(0);
        return;
      }
    }
    this.carry = data.slice(at);
  }
}
