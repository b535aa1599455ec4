// POST /phone-numbers/{id}/dispatch-test: which rule would answer a call from `caller` at `at`,
// and for every rule whether it matched and, if not, which filter failed and why. Runs the very
// evaluation the call controller runs (dispatch/evaluate.ts), so the answer cannot drift from it.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { FieldErrorBag } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { evaluateDispatch } from './dispatch/evaluate.js';
import { ANONYMOUS, type DispatchRule } from './dispatch/rule.js';
import type { DispatchTestBody, DispatchTestResult } from './phone-numbers.schema.js';

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/i;
/** E.164 syntax only: carriers pass caller IDs a numbering-plan check might refuse. */
const E164_SYNTAX = /^\+[1-9]\d{1,14}$/;

/** Parses the request: caller as dispatch sees it, and the instant (default `now`). */
export function parseDispatchTest(body: DispatchTestBody, now: number): { caller: string; at: Date } {
  const bag = new FieldErrorBag();
  let caller = body.caller.trim();
  if (caller !== ANONYMOUS) {
    const parsed = caller.startsWith('+') ? parsePhoneNumberFromString(caller)?.number : undefined;
    if (parsed && E164_SYNTAX.test(parsed)) caller = parsed;
    else if (!E164_SYNTAX.test(caller))
      bag.add('caller', 'must be an E.164 number (+ and digits) or anonymous');
  }
  let at = new Date(now);
  if (body.at !== undefined) {
    const ms = ISO_INSTANT.test(body.at) ? Date.parse(body.at) : NaN;
    if (Number.isNaN(ms)) bag.add('at', 'must be an ISO 8601 timestamp with Z or an offset');
    else at = new Date(ms);
  }
  bag.throwIfAny();
  return { caller, at };
}

export function dispatchTestReport(
  rules: readonly DispatchRule[],
  input: { caller: string; at: Date },
): DispatchTestResult {
  const { winner, results } = evaluateDispatch(rules, input);
  return {
    caller: input.caller,
    at: apiTime(input.at.toISOString()),
    winner: winner && {
      index: winner.index,
      workflow_id: winner.rule.workflow_id,
      priority: results.find((r) => r.index === winner.index)!.priority,
      variables: winner.rule.variables ?? {},
    },
    rules: results.map((r) => ({
      index: r.index,
      workflow_id: rules[r.index]!.workflow_id,
      priority: r.priority,
      matched: r.matched,
      failed_filter: r.failed_filter ?? null,
      reason: r.reason ?? null,
    })),
  };
}
