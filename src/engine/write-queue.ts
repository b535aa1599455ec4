// Runs store writes one after another, in event order, off the execution's path: listeners of the
// event stream are synchronous, so they enqueue here and flush() waits for the tail. A failed
// write is reported and does not stop later ones (a transcript gap beats a dropped call).
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  push(write: () => Promise<void>): void {
    this.tail = this.tail.then(write).catch((err: unknown) => this.onError(err));
  }

  /** Resolves when every write enqueued so far has finished. */
  flush(): Promise<void> {
    return this.tail;
  }
}
