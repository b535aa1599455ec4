// Checks a list of dispatch rules beyond what the JSON schema can say, and turns it into the
// stored form. Errors are keyed by path (dispatch_rules.0.time_window.start) so a client can point
// at the exact field. Workflow ownership needs the store: the caller passes the ids that exist.
import { IANAZone } from 'luxon';
import type { FieldErrorBag } from '../../shared/errors.js';
import { ANONYMOUS, DEFAULT_PRIORITY, type DispatchRule } from './dispatch/rule.js';
import type { DispatchRuleInput } from './phone-numbers.schema.js';

/** Most rules one number may carry; dispatch reads them all for every inbound call. */
export const MAX_DISPATCH_RULES = 50;

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
/** `+` and 1-15 digits: a full E.164 number or a prefix of one. */
const CALLER_ENTRY = /^\+\d{1,15}$/;

/** The workflow ids the rules name, to look up in one query. */
export function referencedWorkflows(rules: readonly DispatchRuleInput[]): string[] {
  return [...new Set(rules.map((r) => r.workflow_id))];
}

/**
 * Validates rules into `bag` and returns them in stored form (priority defaulted, variables {}).
 * `knownWorkflows` holds the referenced ids that are workflows of the number's workspace.
 */
export function validateDispatchRules(
  bag: FieldErrorBag,
  rules: readonly DispatchRuleInput[],
  knownWorkflows: ReadonlySet<string>,
): DispatchRule[] {
  if (rules.length > MAX_DISPATCH_RULES) {
    bag.add('dispatch_rules', `may hold at most ${MAX_DISPATCH_RULES} rules`);
  }
  return rules.map((input, i) => {
    const at = `dispatch_rules.${i}`;
    if (!knownWorkflows.has(input.workflow_id)) {
      bag.add(`${at}.workflow_id`, 'does not name a workflow of this workspace');
    }
    const rule: DispatchRule = {
      workflow_id: input.workflow_id,
      priority: input.priority ?? DEFAULT_PRIORITY,
      variables: input.variables ?? {},
    };
    // Stored only when set, so rules written before recording existed read back unchanged.
    if (input.record) rule.record = true;
    if (input.time_window) {
      const w = input.time_window;
      if (w.days.length === 0) bag.add(`${at}.time_window.days`, 'must list at least one day');
      const dup = w.days.find((d, j) => w.days.indexOf(d) !== j);
      if (dup) bag.add(`${at}.time_window.days`, `lists ${dup} more than once`);
      for (const f of ['start', 'end'] as const) {
        if (!HHMM.test(w[f])) bag.add(`${at}.time_window.${f}`, 'must be a 24-hour time HH:MM');
      }
      if (!isIanaZone(w.timezone)) {
        bag.add(`${at}.time_window.timezone`, 'must be an IANA time zone name, e.g. Europe/Berlin');
      }
      rule.time_window = { days: [...w.days], start: w.start, end: w.end, timezone: w.timezone };
    }
    if (input.caller_id) {
      const c = input.caller_id;
      if (c.allow === undefined && c.block === undefined) {
        bag.add(`${at}.caller_id`, 'must have allow or block');
      }
      rule.caller_id = {};
      for (const list of ['allow', 'block'] as const) {
        const entries = c[list];
        if (entries === undefined) continue;
        if (entries.length === 0)
          bag.add(`${at}.caller_id.${list}`, 'must not be empty; leave it out instead');
        entries.forEach((e, j) => {
          if (e !== ANONYMOUS && !CALLER_ENTRY.test(e)) {
            bag.add(
              `${at}.caller_id.${list}.${j}`,
              'must be an E.164 number, a + prefix of digits, or anonymous',
            );
          }
        });
        rule.caller_id[list] = [...entries];
      }
    }
    return rule;
  });
}

/** An IANA zone name (stored as written); UTC offsets like +05:00 are refused. */
export function isIanaZone(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) && IANAZone.isValidZone(name);
}
