import { describe, expect, it } from 'vitest';
import { FrameCutter } from './frames.js';

describe('FrameCutter', () => {
  it('cuts pieces of any length into whole frames in order, keeping the remainder', () => {
    const cutter = new FrameCutter(4);
    const frames: number[][] = [];
    const take = (f: Int16Array) => (frames.push([...f]), false);
    cutter.push(Int16Array.from([1, 2, 3]), take);
    expect(frames).toEqual([]);
    cutter.push(Int16Array.from([4, 5, 6, 7, 8, 9, 10]), take);
    cutter.push(Int16Array.from([11, 12]), take);
    expect(frames).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10, 11, 12],
    ]);
  });

  it('drops the rest of what has arrived once a frame says it is done', () => {
    const cutter = new FrameCutter(2);
    const frames: number[][] = [];
    cutter.push(Int16Array.from([1, 2, 3, 4, 5]), (f) => (frames.push([...f]), true));
    // Nothing of 3, 4, 5 is kept: the next frame is made of what comes next.
    cutter.push(Int16Array.from([6, 7]), (f) => (frames.push([...f]), false));
    expect(frames).toEqual([
      [1, 2],
      [6, 7],
    ]);
  });
});
