import { describe, expect, it } from 'vitest';
import { requestId, requestIdFor } from './request-id.js';

describe('request ids', () => {
  it('are UUIDv7: the millisecond time first, version 7, RFC variant, and differ', () => {
    const at = Date.parse('2026-11-21T10:00:00.123Z');
    const ids = new Set(Array.from({ length: 1000 }, () => requestId(at)));
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
    }
  });

  it('keep a well-formed id the caller sent and replace any other', () => {
    expect(requestIdFor('trace-42.a_b')).toBe('trace-42.a_b');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), ['a', 'b']]) {
      expect(requestIdFor(bad)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
