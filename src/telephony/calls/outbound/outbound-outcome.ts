// What an outbound INVITE's responses and events mean for the call record: its status and
// hangup_reason. Pure: the outbound state machine asks this table, and docs/calls.md
// lists the same rows.
import type { HangupReason } from '../../../modules/calls/call-lifecycle.js';
import type { CallStatus } from '../../../modules/calls/calls.schema.js';

/** Something that happened to an outbound leg. */
export type OutboundEvent =
  /** A 1xx response to our INVITE. */
  | { kind: 'provisional'; status: number }
  /**
   * The final response to our INVITE. `withCredentials`: the INVITE that drew it carried our
   * digest credentials (the stack answers the first 401/407 challenge itself).
   */
  | { kind: 'final'; status: number; withCredentials: boolean }
  /** Timer B/F fired or the transport failed before a final response. */
  | { kind: 'transport_error' }
  /** We sent CANCEL before an answer (DELETE of the call, or the caller went away). */
  | { kind: 'cancelled' }
  /** The ring timeout elapsed without an answer. */
  | { kind: 'ring_timeout' }
  /** The callee sent BYE after answering. */
  | { kind: 'bye' };

export type OutboundOutcome =
  /** Nothing to record (100 Trying, 199, other 1xx). */
  | { kind: 'none' }
  | { kind: 'progress'; status: 'ringing' | 'in_progress' }
  | { kind: 'end'; status: Exclude<CallStatus, 'queued' | 'ringing' | 'in_progress'>; reason: HangupReason };

/** Provisional responses that mean the far end is alerting or reporting progress. */
const RINGING = new Set([180, 181, 182, 183]);

export function outboundOutcome(event: OutboundEvent): OutboundOutcome {
  switch (event.kind) {
    case 'provisional':
      return RINGING.has(event.status) ? { kind: 'progress', status: 'ringing' } : { kind: 'none' };
    case 'final':
      return finalOutcome(event.status, event.withCredentials);
    case 'transport_error':
      return { kind: 'end', status: 'failed', reason: 'carrier_error' };
    case 'cancelled':
      return { kind: 'end', status: 'cancelled', reason: 'caller_cancelled' };
    case 'ring_timeout':
      return { kind: 'end', status: 'no_answer', reason: 'ring_timeout' };
    case 'bye':
      return { kind: 'end', status: 'completed', reason: 'callee_hangup' };
  }
}

function finalOutcome(status: number, withCredentials: boolean): OutboundOutcome {
  if (status >= 200 && status < 300) return { kind: 'progress', status: 'in_progress' };
  if (status === 486 || status === 600) return { kind: 'end', status: 'busy', reason: 'busy' };
  // 401/407 reach us as final only when the stack could not answer the challenge (it answers the
  // first one with the trunk's credentials), so they always mean the trunk refused us. A 403 to an
  // INVITE that carried no credentials is the carrier refusing the route, not our password.
  if (status === 401 || status === 407) return { kind: 'end', status: 'failed', reason: 'trunk_auth_failed' };
  if (status === 403) {
    return withCredentials
      ? { kind: 'end', status: 'failed', reason: 'trunk_auth_failed' }
      : { kind: 'end', status: 'failed', reason: 'carrier_error' };
  }
  if (status === 404 || status === 484) return { kind: 'end', status: 'failed', reason: 'invalid_number' };
  // 487 follows our own CANCEL; the state machine has already ended the call by then, so this row
  // only applies when a 487 arrives without our CANCEL (a carrier-side abort).
  return { kind: 'end', status: 'failed', reason: 'carrier_error' };
}
