// Picks the rule that answers an inbound call (docs/dispatch.md): rules in ascending priority, ties in
// stored order; the first rule whose every filter matches wins; a rule without filters always
// matches. Every rule is still reported, so the dispatch-test endpoint can say why each lost.
import { checkCallerId, type Caller } from './caller-id.js';
import { DEFAULT_PRIORITY, type DispatchRule } from './rule.js';
import { checkTimeWindow } from './time-window.js';

export interface DispatchInput {
  /** E.164 number of the caller, or `anonymous` when withheld. */
  caller: Caller;
  at: Date;
}

export type DispatchFilter = 'time_window' | 'caller_id';

export interface RuleResult {
  /** Position of the rule in the stored list. */
  index: number;
  priority: number;
  matched: boolean;
  failed_filter?: DispatchFilter;
  reason?: string;
}

export interface DispatchOutcome<R extends DispatchRule = DispatchRule> {
  winner: { index: number; rule: R } | null;
  /** One entry per rule, in evaluation order. */
  results: RuleResult[];
}

export function evaluateDispatch<R extends DispatchRule>(
  rules: readonly R[],
  input: DispatchInput,
): DispatchOutcome<R> {
  const order = rules
    .map((rule, index) => ({ rule, index, priority: rule.priority ?? DEFAULT_PRIORITY }))
    .sort((a, b) => a.priority - b.priority || a.index - b.index);

  let winner: DispatchOutcome<R>['winner'] = null;
  const results: RuleResult[] = [];
  for (const { rule, index, priority } of order) {
    const result = evaluateRule(rule, input);
    results.push({ index, priority, ...result });
    if (result.matched && !winner) winner = { index, rule };
  }
  return { winner, results };
}

function evaluateRule(
  rule: DispatchRule,
  input: DispatchInput,
): Pick<RuleResult, 'matched' | 'failed_filter' | 'reason'> {
  if (rule.time_window) {
    const c = checkTimeWindow(rule.time_window, input.at);
    if (!c.ok) return { matched: false, failed_filter: 'time_window', reason: c.reason };
  }
  if (rule.caller_id) {
    const c = checkCallerId(rule.caller_id, input.caller);
    if (!c.ok) return { matched: false, failed_filter: 'caller_id', reason: c.reason };
  }
  return { matched: true };
}
