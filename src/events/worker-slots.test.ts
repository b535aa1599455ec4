import { describe, expect, it } from 'vitest';
import { EndpointSlots } from './worker-slots.js';

describe('EndpointSlots', () => {
  it('counts attempts in flight per endpoint against the cap', () => {
    const slots = new EndpointSlots(2);
    for (let i = 0; i < 3; i++) slots.hold('a');
    const first = slots.startSending('a');
    slots.startSending('a');
    expect(slots.atCap('a')).toBe(true);
    expect(slots.atCap('b')).toBe(false);
    first();
    expect(slots.atCap('a')).toBe(false);
  });

  it('tells a claim what it may still take per endpoint held, and which endpoints it cut short', () => {
    const slots = new EndpointSlots(2);
    for (let i = 0; i < 4; i++) slots.hold('full');
    slots.hold('some');
    const remaining = slots.remaining(4);
    expect(remaining).toEqual(
      new Map([
        ['full', 0],
        ['some', 3],
      ]),
    );
    // 'full' was skipped; 'some' got all it was allowed; 'new' got fewer than the allowance.
    const cut = EndpointSlots.cut(
      [{ endpointId: 'some' }, { endpointId: 'some' }, { endpointId: 'some' }, { endpointId: 'new' }],
      remaining,
      4,
    );
    expect([...cut].sort()).toEqual(['full', 'some']);
  });

  it('asks for a new claim once a cut-short endpoint has a batch of its allowance free', () => {
    const slots = new EndpointSlots(2);
    for (let i = 0; i < 4; i++) slots.hold('a');
    slots.hold('b');
    // 'a' holds more than its cap: wait for its rows to finish. 'b' holds less: claim at once.
    expect(slots.limit(new Set(['a']))).toBe(false);
    expect(slots.limit(new Set(['a', 'b']))).toBe(true);
    expect(slots.drop('a')).toBe(false); // 3 held
    expect(slots.drop('a')).toBe(true); // 2 held: one batch free
    expect(slots.drop('a')).toBe(false); // asked once only
  });
});
