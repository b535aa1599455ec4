import { describe, expect, it } from 'vitest';
import type { DispatchRule } from '../../api/types';
import { draftOfRule, inEvaluationOrder, moveRule, newRule, ruleOfDraft } from './dispatch-rules';

describe('dispatch rule drafts', () => {
  it('round-trip a rule with every filter as the API takes it', () => {
    const rule: DispatchRule = {
      workflow_id: 'w1',
      priority: 5,
      time_window: { days: ['sat', 'sun'], start: '22:00', end: '06:00', timezone: 'Europe/Berlin' },
      caller_id: { allow: ['+49', 'anonymous'], block: ['+4930999'] },
      variables: { name: 'Ann', vip: true, tries: 3 },
    };
    expect(ruleOfDraft(draftOfRule(rule))).toEqual(rule);
  });

  it('leave out filters the user did not set, and send a priority that is not a number as typed (the API names it)', () => {
    const draft = { ...newRule(100, 'w1'), priority: 'soon' };
    expect(ruleOfDraft(draft)).toEqual({ workflow_id: 'w1', priority: 'soon', variables: {} });
  });

  it('moving a rule renumbers priorities 10, 20, 30 in the new order', () => {
    const rules = [newRule(100, 'a'), newRule(100, 'b'), newRule(300, 'c')];
    const moved = moveRule(rules, 2, -1);
    expect(moved.map((r) => [r.workflow_id, r.priority])).toEqual([
      ['a', '10'],
      ['c', '20'],
      ['b', '30'],
    ]);
    expect(moveRule(rules, 0, -1)).toBe(rules);
  });

  it('orders stored rules as the API evaluates them: ascending priority, stored order on ties', () => {
    const r = (workflow_id: string, priority: number): DispatchRule => ({
      workflow_id,
      priority,
      variables: {},
    });
    expect(inEvaluationOrder([r('x', 100), r('y', 10), r('z', 100)]).map((x) => x.workflow_id)).toEqual([
      'y',
      'x',
      'z',
    ]);
  });
});
