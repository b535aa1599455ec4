import { describe, expect, it } from 'vitest';
import { badTextReason, findBadText, storableText } from './text.js';

describe('text a store keeps as sent', () => {
  it('names NUL characters and unpaired surrogates, and passes everything else', () => {
    expect(badTextReason('a\u0000b')).toMatch(/NUL/);
    expect(badTextReason('\ud800')).toMatch(/unpaired surrogate/);
    expect(badTextReason('x\udc00')).toMatch(/unpaired surrogate/);
    expect(badTextReason('😀 ok, émigré, 中文')).toBeNull();
    expect(badTextReason('')).toBeNull();
  });

  it('finds the first bad string or key with its dotted path', () => {
    expect(findBadText({ name: 'ok', variables: { list: ['a', 'b\u0000'] } })).toEqual({
      field: 'variables.list.1',
      reason: 'must not contain the NUL character (\\u0000)',
    });
    expect(findBadText({ meta: { 'k\u0000': 1 } })).toEqual({
      field: 'meta.k\uFFFD',
      reason: 'key must not contain the NUL character (\\u0000)',
    });
    expect(findBadText('\u0000')).toEqual({ field: '', reason: expect.stringMatching(/NUL/) });
    expect(findBadText({ a: 1, b: [true, null, { c: 'fine' }] })).toBeNull();
  });

  it('makes outside text storable by putting U+FFFD in place of what a store cannot keep', () => {
    expect(storableText('a\u0000b\ud800c')).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('😀')).toBe('😀');
  });
});
