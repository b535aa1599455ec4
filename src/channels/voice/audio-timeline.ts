// Maps offsets in an STT session's audio (what the vendor's timestamps count) back to the
// Clock.monotonic() at which that audio reached us, so a turn's `endedAt` is when the caller
// stopped speaking, not when the vendor got round to saying so (its endpointing delay and the
// network come after it and belong in the latency measure).
const KEEP = 3000; // ~60 s of 20 ms frames

export class AudioTimeline {
  /** [offset (ms) at the end of a frame, monotonic time the frame arrived] */
  private marks: [number, number][] = [];
  private sentMs = 0;

  /** Audio sent so far, in milliseconds. */
  get offsetMs(): number {
    return this.sentMs;
  }

  /** A frame of `durationMs` that arrived at `at` (monotonic) was sent to the session. */
  add(durationMs: number, at: number): void {
    this.sentMs += durationMs;
    this.marks.push([this.sentMs, at]);
    if (this.marks.length > KEEP * 2) this.marks = this.marks.slice(-KEEP);
  }

  /**
   * The monotonic time at which offset `ms` was heard: the arrival of the frame holding it, less
   * the audio after it in that frame (a frame arrives when its last sample has been captured).
   * Never later than `now`.
   */
  at(ms: number, now: number): number {
    const marks = this.marks;
    let i = marks.length - 1;
    if (i < 0) return now;
    while (i > 0 && marks[i - 1]![0] >= ms) i--;
    const [end, arrived] = marks[i]!;
    return Math.min(now, arrived - Math.max(0, end - ms));
  }
}
