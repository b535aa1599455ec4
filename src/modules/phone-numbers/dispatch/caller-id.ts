// Does a caller pass a rule's caller_id filter? Entries are `+digits` (a full E.164 number is
// simply the longest prefix of itself) or `anonymous`, which only matches callers who withhold
// their number. Block is checked first and wins over allow.
import { ANONYMOUS, type CallerIdFilter } from './rule.js';
import type { FilterCheck } from './time-window.js';

/** The caller as dispatch sees it: an E.164 number, or `anonymous` when withheld. */
export type Caller = string;

export function callerMatches(entry: string, caller: Caller): boolean {
  if (entry === ANONYMOUS || caller === ANONYMOUS) return entry === caller;
  return caller.startsWith(entry);
}

export function checkCallerId(f: CallerIdFilter, caller: Caller): FilterCheck {
  const who = caller === ANONYMOUS ? 'an anonymous caller' : `caller ${caller}`;
  const blockedBy = f.block?.find((e) => callerMatches(e, caller));
  if (blockedBy !== undefined) return { ok: false, reason: `${who} is blocked by ${blockedBy}` };
  if (f.allow && f.allow.length > 0 && !f.allow.some((e) => callerMatches(e, caller))) {
    return { ok: false, reason: `${who} is not in the allow list` };
  }
  return { ok: true };
}
