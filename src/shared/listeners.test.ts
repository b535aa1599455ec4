import { describe, expect, it } from 'vitest';
import { Listeners } from './listeners.js';

describe('Listeners', () => {
  it('an emit calls those added before it began, whatever they add or remove meanwhile', () => {
    const listeners = new Listeners<number>();
    const heard: string[] = [];
    let removeB: () => void = () => undefined;
    listeners.add((n) => {
      heard.push(`a${n}`);
      removeB();
      listeners.add((m) => heard.push(`c${m}`));
    });
    removeB = listeners.add((n) => heard.push(`b${n}`));
    listeners.emit(1);
    expect(heard).toEqual(['a1', 'b1']);
    heard.length = 0;
    listeners.emit(2);
    expect(heard).toEqual(['a2', 'c2']);
  });

  it('unsubscribes once, adds a listener once, and clear() drops them all', () => {
    const listeners = new Listeners<number>();
    const heard: number[] = [];
    const l = (n: number) => heard.push(n);
    const off = listeners.add(l);
    listeners.add(l);
    listeners.emit(1);
    off();
    off();
    listeners.emit(2);
    const again = listeners.add(l);
    listeners.clear();
    listeners.emit(3);
    again();
    expect(heard).toEqual([1]);
  });
});
