// Runs the fuzz script in-process on a small count: CI's share of the million-message run.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../../../bench/sip-fuzz.js';

describe('SIP fuzz', () => {
  it('20,000 random and mutated messages without a crash', () => {
    const fixturesDir = fileURLToPath(new URL('../../../../test/fixtures/rfc4475/', import.meta.url));
    const r = runFuzz({ count: 20_000, seed: 20_000, fixturesDir });
    expect(r.samples).toEqual([]);
    expect(r.crashes).toBe(0);
    expect(r.iterations).toBe(20_000);
    // Both paths are exercised: plenty of inputs parse, plenty do not.
    expect(r.parsed).toBeGreaterThan(1000);
    expect(r.parseErrors).toBeGreaterThan(1000);
  });
});
