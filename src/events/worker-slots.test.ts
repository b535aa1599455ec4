import { describe, expect, it } from 'vitest';
import { EndpointSlots, HELD_PER_CAP } from './worker-slots.js';

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

  it('holds three times the cap per endpoint and asks for a new claim once one batch of it is free', () => {
    const slots = new EndpointSlots(2);
    expect(slots.allowance).toBe(HELD_PER_CAP * 2);
    expect(HELD_PER_CAP).toBe(3);
    for (let i = 0; i < 6; i++) slots.hold('a');
    slots.hold('b');
    // 'a' holds more than its allowance less a batch: wait for its rows to finish. 'b': at once.
    expect(slots.limit(new Set(['a']))).toBe(false);
    expect(slots.limit(new Set(['a', 'b']))).toBe(true);
    expect(slots.drop('a')).toBe(false); // 5 held
    expect(slots.drop('a')).toBe(true); // 4 held: one batch free
    expect(slots.drop('a')).toBe(false); // asked once only
  });

  it('can wait for two batches of the cap to be free before asking for a new claim', () => {
    const slots = new EndpointSlots(2, 2);
    expect(slots.allowance).toBe(6);
    for (let i = 0; i < 6; i++) slots.hold('a');
    expect(slots.limit(new Set(['a']))).toBe(false);
    expect([slots.drop('a'), slots.drop('a'), slots.drop('a')]).toEqual([false, false, false]);
    expect(slots.drop('a')).toBe(true); // 2 held: two batches free
  });

  it('counts the rows each endpoint has buffered past one batch of its cap', () => {
    const slots = new EndpointSlots(2);
    for (let i = 0; i < 6; i++) slots.hold('a'); // 6 buffered: 4 past the first batch
    slots.hold('b');
    expect(slots.beyondFirstBatch).toBe(4);
    const sent = [slots.startSending('a'), slots.startSending('a')]; // 4 buffered
    expect(slots.beyondFirstBatch).toBe(2);
    sent[0]!(); // finished: one more not sending until it is dropped
    expect(slots.beyondFirstBatch).toBe(3);
    slots.drop('a');
    expect(slots.beyondFirstBatch).toBe(2);
    for (let i = 0; i < 5; i++) slots.drop('a');
    expect(slots.beyondFirstBatch).toBe(0);
  });
});
