// The listeners of one kind of event (a call's audio frames, key presses, an end): `add` returns
// the unsubscribe, as every `onX(listener)` of the media seams does, and `emit` calls those added
// before it began, so a listener that adds or removes another does not change who hears this one.

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  add(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => void this.set.delete(listener);
  }

  emit(value: T): void {
    for (const l of [...this.set]) l(value);
  }

  clear(): void {
    this.set.clear();
  }
}
