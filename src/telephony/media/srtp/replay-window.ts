// The receiver's replay list (RFC 3711 3.3.2): a sliding window over packet indexes, the highest
// index authenticated so far at its top. An index above the top is new; one that fell out of the
// window is too old to tell and is dropped; one inside it is dropped if it was seen. The window is
// 128 wide (the RFC asks for at least 64) and kept as one byte per slot, so checks allocate
// nothing. `check` runs before authentication, `accept` only after it: a forged packet must never
// move the window.

const SIZE = 128;

export class ReplayWindow {
  private top = -1;
  private readonly seen = new Uint8Array(SIZE);

  /** The highest index accepted so far; -1 before the first. */
  get highest(): number {
    return this.top;
  }

  /** False for a replayed index or one older than the window. */
  check(index: number): boolean {
    if (index > this.top) return true;
    if (this.top - index >= SIZE) return false;
    return this.seen[index % SIZE] === 0;
  }

  /** Records an authenticated index. */
  accept(index: number): void {
    if (index > this.top) {
      if (this.top < 0 || index - this.top >= SIZE) this.seen.fill(0);
      else for (let i = this.top + 1; i < index; i++) this.seen[i % SIZE] = 0;
      this.top = index;
    }
    this.seen[index % SIZE] = 1;
  }
}
