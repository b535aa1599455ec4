// The seam between POST /calls and telephony: the API creates the queued call in its transaction,
// then hands it to a Dialer. The SIP dialer (call controller) implements it; failures of call
// set-up are never HTTP errors, they end the call with a status and hangup_reason.
import type { Logger } from '../../shared/logger.js';
import { inTransaction } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { endCall } from './call-lifecycle.js';

export interface Dialer {
  /**
   * SWITCHBOARD_NODE_ID of the node that places the calls handed to dial() (the in-process SIP
   * dialer's): POST /calls writes it with the queued row. Unset for a dialer that places none.
   */
  readonly nodeId?: string;
  /** Starts dialing a queued outbound call; returns at once, progress is written to the call. */
  dial(call: CallTable): void;
  /**
   * Cancels a call that has not been answered yet (→ cancelled / caller_cancelled). True when the
   * call was live in this process; false when only its record was ended here (another node dials it).
   */
  cancel?(callId: string): Promise<boolean>;
}

/**
 * The dialer of a process that runs no SIP stack (SIP_PORT=0, or a role without SIP): the call
 * cannot be placed, so it ends `failed` with hangup_reason `sip_unavailable` and call.ended says so.
 * It has no nodeId: no node holds media for such a call, and should this process die before the
 * ending is stored, the null node_id lets whichever node restarts next sweep it.
 */
export class UnavailableDialer implements Dialer {
  constructor(
    private readonly deps: Pick<ServiceDeps, 'db' | 'clock' | 'newId'>,
    private readonly logger: Logger,
  ) {}

  dial(call: CallTable): void {
    void inTransaction(this.deps.db, (trx) =>
      endCall(trx, this.deps, call.id, { status: 'failed', reason: 'sip_unavailable' }),
    ).catch((err: unknown) =>
      this.logger.error({ err, call_id: call.id }, 'could not end an undialable call'),
    );
  }
}
