// A push-to-pull bridge: callbacks (WebSocket messages) push items, one consumer pulls them with
// for-await. Ending or failing the queue wakes the consumer once the items before it are read.

export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((err: unknown) => void) | undefined;
  private ended = false;
  private error: { err: unknown } | undefined;

  push(item: T): void {
    if (this.ended || this.error) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  end(): void {
    if (this.ended || this.error) return;
    this.ended = true;
    this.wake();
  }

  fail(err: unknown): void {
    if (this.ended || this.error) return;
    this.error = { err };
    this.wake();
  }

  get closed(): boolean {
    return this.ended || this.error !== undefined;
  }

  private wake(): void {
    if (!this.waiting) return;
    const resolve = this.waiting;
    const reject = this.failWaiting!;
    this.waiting = this.failWaiting = undefined;
    if (this.error) reject(this.error.err);
    else resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
        if (this.error) return Promise.reject(this.error.err);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = resolve;
          this.failWaiting = reject;
        });
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
