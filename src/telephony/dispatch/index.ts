// Inbound dispatch: the rule shape and its pure evaluation.
export * from './rule.js';
export { evaluateDispatch } from './evaluate.js';
export type { DispatchFilter, DispatchInput, DispatchOutcome, RuleResult } from './evaluate.js';
export { checkTimeWindow } from './time-window.js';
export { callerMatches, checkCallerId, type Caller } from './caller-id.js';
export { dispatchCaller, type SipCallerInfo } from './sip-caller.js';
