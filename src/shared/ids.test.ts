import { describe, expect, it } from 'vitest';
import { uuidv7 } from './ids.js';

const FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant UUID carrying its millisecond time', () => {
    const at = Date.parse('2031-05-06T07:08:09.123Z');
    const id = uuidv7(at);
    expect(id).toMatch(FORMAT);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('grows strictly within one millisecond and never goes back with the clock', () => {
    const at = Date.parse('2031-05-06T07:08:10Z');
    const ids = Array.from({ length: 1_000 }, () => uuidv7(at));
    ids.push(uuidv7(at - 5_000));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('gives every id random bits of its own, across many draws of random bytes', () => {
    const tails = new Set(Array.from({ length: 3_000 }, () => uuidv7().slice(-12)));
    expect(tails.size).toBe(3_000);
  });
});
