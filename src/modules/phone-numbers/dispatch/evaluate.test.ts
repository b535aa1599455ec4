import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callerMatches, checkCallerId } from './caller-id.js';
import { evaluateDispatch } from './evaluate.js';
import type { DispatchRule } from './rule.js';

const rule = (workflow_id: string, extra: Partial<DispatchRule> = {}): DispatchRule => ({
  workflow_id,
  priority: 100,
  variables: {},
  ...extra,
});
const at = new Date('2026-11-02T15:00:00Z'); // Monday 10:00 in New York

describe('caller_id filter', () => {
  const f = { allow: ['+1415'], block: ['+14155550123'] };

  it('lets block win over an overlapping allow', () => {
    expect(checkCallerId(f, '+14155550123')).toEqual({
      ok: false,
      reason: 'caller +14155550123 is blocked by +14155550123',
    });
    expect(checkCallerId(f, '+14155550199').ok).toBe(true);
    expect(checkCallerId(f, '+12025550123')).toEqual({
      ok: false,
      reason: 'caller +12025550123 is not in the allow list',
    });
  });

  it('matches anonymous callers only with the literal', () => {
    expect(checkCallerId(f, 'anonymous').ok).toBe(false);
    expect(checkCallerId({ allow: ['anonymous'] }, 'anonymous').ok).toBe(true);
    expect(checkCallerId({ block: ['anonymous'] }, 'anonymous')).toEqual({
      ok: false,
      reason: 'an anonymous caller is blocked by anonymous',
    });
    expect(checkCallerId({ block: ['anonymous'] }, '+4930123456').ok).toBe(true);
    expect(checkCallerId({ block: ['+49'] }, 'anonymous').ok).toBe(true);
    expect(callerMatches('+', 'anonymous')).toBe(false);
  });

  it('treats every entry as a prefix, a full number being the longest one', () => {
    expect(callerMatches('+49', '+4930123456')).toBe(true);
    expect(callerMatches('+4930123456', '+4930123456')).toBe(true);
    expect(callerMatches('+4930123457', '+4930123456')).toBe(false);
    expect(callerMatches('+1', '+4930123456')).toBe(false);
  });
});

describe('evaluateDispatch', () => {
  it('evaluates in ascending priority and keeps stored order for ties', () => {
    const rules = [
      rule('w-late', { priority: 200 }),
      rule('w-a', { priority: 10 }),
      rule('w-b', { priority: 10 }),
    ];
    const out = evaluateDispatch(rules, { caller: '+14155550100', at });
    expect(out.winner).toEqual({ index: 1, rule: rules[1] });
    expect(out.results.map((r) => r.index)).toEqual([1, 2, 0]);
    expect(out.results.every((r) => r.matched)).toBe(true);
  });

  it('skips rules whose filters fail, naming the filter, and lets a filterless rule catch all', () => {
    const rules = [
      rule('vip', { priority: 1, caller_id: { allow: ['+4930'] } }),
      rule('hours', {
        priority: 2,
        time_window: { days: ['sat', 'sun'], start: '09:00', end: '17:00', timezone: 'America/New_York' },
      }),
      rule('both', {
        priority: 3,
        time_window: { days: ['mon'], start: '09:00', end: '17:00', timezone: 'America/New_York' },
        caller_id: { block: ['+1415'] },
      }),
      rule('catch-all', { priority: 1000 }),
    ];
    const out = evaluateDispatch(rules, { caller: '+14155550100', at });
    expect(out.winner?.rule.workflow_id).toBe('catch-all');
    expect(out.results).toEqual([
      {
        index: 0,
        priority: 1,
        matched: false,
        failed_filter: 'caller_id',
        reason: 'caller +14155550100 is not in the allow list',
      },
      {
        index: 1,
        priority: 2,
        matched: false,
        failed_filter: 'time_window',
        reason: 'mon 10:00 America/New_York is outside sat,sun 09:00-17:00',
      },
      {
        index: 2,
        priority: 3,
        matched: false,
        failed_filter: 'caller_id',
        reason: 'caller +14155550100 is blocked by +1415',
      },
      { index: 3, priority: 1000, matched: true },
    ]);
  });

  it('requires every filter: a failing time window is reported before the caller check', () => {
    const rules = [
      rule('w', {
        time_window: { days: ['tue'], start: '09:00', end: '17:00', timezone: 'UTC' },
        caller_id: { block: ['+1'] },
      }),
    ];
    const out = evaluateDispatch(rules, { caller: '+14155550100', at });
    expect(out.winner).toBeNull();
    expect(out.results[0]).toMatchObject({ matched: false, failed_filter: 'time_window' });
  });

  it('returns no winner for no rules, and defaults a missing priority to 100', () => {
    expect(evaluateDispatch([], { caller: 'anonymous', at })).toEqual({ winner: null, results: [] });
    const loose = [
      { workflow_id: 'a', variables: {} } as unknown as DispatchRule,
      rule('b', { priority: 99 }),
    ];
    const out = evaluateDispatch(loose, { caller: 'anonymous', at });
    expect(out.winner?.index).toBe(1);
    expect(out.results[1]).toMatchObject({ index: 0, priority: 100 });
  });

  it('picks the lowest-priority matching rule, earliest stored on ties (property)', () => {
    const arb = fc.array(
      fc.record({
        priority: fc.integer({ min: 0, max: 5 }),
        allow: fc.option(fc.constantFrom('+1', '+49', 'anonymous'), { nil: undefined }),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(arb, fc.constantFrom('+14155550100', '+4930123456', 'anonymous'), (spec, caller) => {
        const rules = spec.map((s, i) =>
          rule(`w${i}`, { priority: s.priority, ...(s.allow ? { caller_id: { allow: [s.allow] } } : {}) }),
        );
        const matching = spec
          .map((s, i) => ({ i, p: s.priority, ok: !s.allow || callerMatches(s.allow, caller) }))
          .filter((x) => x.ok)
          .sort((a, b) => a.p - b.p || a.i - b.i);
        const out = evaluateDispatch(rules, { caller, at });
        expect(out.winner?.index ?? null).toBe(matching[0]?.i ?? null);
        expect(out.results).toHaveLength(rules.length);
      }),
    );
  });
});
