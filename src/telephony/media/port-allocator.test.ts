import { describe, expect, it } from 'vitest';
import { RtpPortAllocator } from './port-allocator.js';

describe('RtpPortAllocator', () => {
  it('hands out even ports with room for RTCP, then null', () => {
    const a = new RtpPortAllocator(20001, 20008);
    expect([a.allocate(), a.allocate(), a.allocate(), a.allocate()]).toEqual([20002, 20004, 20006, null]);
    expect(a.inUse).toBe(3);
  });

  it('reuses freed ports, oldest freed first, and ignores double frees', () => {
    const a = new RtpPortAllocator(30000, 30005);
    const p1 = a.allocate()!;
    const p2 = a.allocate()!;
    a.allocate();
    a.release(p2);
    a.release(p1);
    a.release(p1);
    expect(a.available).toBe(2);
    expect([a.allocate(), a.allocate(), a.allocate()]).toEqual([p2, p1, null]);
  });

  it('refuses a range with no usable pair', () => {
    expect(() => new RtpPortAllocator(20001, 20002)).toThrow(RangeError);
  });
});
