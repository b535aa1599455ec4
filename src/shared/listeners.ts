// The listeners of one kind of event (a call's audio frames, key presses, an end): `add` returns
// the unsubscribe, as every `onX(listener)` of the media seams does, and `emit` calls those added
// before it began, so a listener that adds or removes another does not change who hears this one.
// Emits outnumber changes by far (every 20 ms frame of a call against a few subscriptions in its
// life): a change makes a new list, so an emit walks the one it began with and allocates nothing.

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();
  private list: readonly ((value: T) => void)[] = [];

  add(listener: (value: T) => void): () => void {
    this.set.add(listener);
    this.list = [...this.set];
    return () => {
      if (this.set.delete(listener)) this.list = [...this.set];
    };
  }

  emit(value: T): void {
    for (const l of this.list) l(value);
  }

  clear(): void {
    this.set.clear();
    this.list = [];
  }
}
