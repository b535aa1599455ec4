import { describe, expect, it } from 'vitest';
import { isE164 } from './e164.js';

describe('isE164', () => {
  it('gives the same answer the second time a number is asked about', () => {
    for (const n of ['+14155550123', '+1415555012', '+999123456', '+442071838750', '+1', 'x']) {
      const first = isE164(n);
      expect(isE164(n)).toBe(first);
    }
    expect(isE164('+14155550123')).toBe(true);
    expect(isE164('+999123456')).toBe(false);
    expect(isE164('+1415555012')).toBe(false);
  });
});
