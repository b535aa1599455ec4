// Calls: outbound calls are created queued by POST /calls and handed to the Dialer; inbound ones
// are created by the call controller. Set-up failures show on the call, never as HTTP errors.
import type { PageParams } from '../../shared/paging.js';
import { announce, type LivePublisher } from '../../events/live-bus.js';
import { isE164 } from '../../shared/e164.js';
import { ConflictError, FieldErrorBag, NotFoundError } from '../../shared/errors.js';
import { inTransaction, toDbTime } from '../../store/database.js';
import type { CallTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import { requirePublishedWorkflow } from '../sessions/sessions.service.js';
import { phoneNumbersRepo } from '../phone-numbers/phone-numbers.repo.js';
import { consumeQuota } from '../usage/quota.service.js';
import { endCall, toCall } from './call-lifecycle.js';
import { callsRepo, listCallsJson, type CallFilter, type CallPageJson } from './calls.repo.js';
import type { Call, CreateCall } from './calls.schema.js';
import type { Dialer } from './dialer.js';

export type { CallFilter } from './calls.repo.js';

export class CallsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly dialer: Dialer,
    /** Tells the other nodes (REDIS_URL); without it a call dialled elsewhere rings on. */
    private readonly events?: LivePublisher,
  ) {}

  /** One page of calls, each as the API's JSON text, rendered by the store (calls.repo.ts). */
  list(actor: Actor, filter: CallFilter, page: PageParams): Promise<CallPageJson> {
    return listCallsJson(this.deps.db, actor.workspaceId, filter, page);
  }

  async get(actor: Actor, id: string): Promise<Call> {
    const row = await callsRepo.findInWorkspace(this.deps.db, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Call');
    return toCall(row);
  }

  /**
   * Cancels an outbound call that has not been answered (DELETE /calls/{id}, beyond the spec):
   * CANCEL on the wire, `cancelled` / `caller_cancelled` with call.ended. An inbound call, or one
   * that is connected or over, is a 409 (a connected call ends from its workflow or the far end).
   */
  async cancel(actor: Actor, id: string): Promise<Call> {
    const notCancellable = (call: Call) =>
      new ConflictError(
        `Only an outbound call that is queued or ringing can be cancelled; this one is ${call.direction}, ${call.status}.`,
      );
    const before = await this.get(actor, id);
    if (before.direction !== 'outbound' || (before.status !== 'queued' && before.status !== 'ringing')) {
      throw notCancellable(before);
    }
    let here = false;
    if (this.dialer.cancel) {
      here = await this.dialer.cancel(id);
    } else {
      await inTransaction(this.deps.db, (trx) =>
        endCall(trx, this.deps, id, {
          status: 'cancelled',
          reason: 'caller_cancelled',
          from: ['queued', 'ringing'],
        }),
      );
    }
    // Answered (or ended otherwise) between the check above and the cancel: the same 409 as if it
    // had been so already, whichever node it rings from.
    const after = await this.get(actor, id);
    if (after.status !== 'cancelled') throw notCancellable(after);
    // Only the record ended here: the node that dials the call must put CANCEL on the wire, or the
    // callee's phone rings on until an answer (then BYE) or the ring timeout.
    if (!here) await announce(this.events, { kind: 'call.cancel', call_id: id }, this.deps.logger);
    return after;
  }

  async create(actor: Actor, input: CreateCall): Promise<Call> {
    const { deps } = this;
    const bag = new FieldErrorBag();
    if (!isE164(input.to)) bag.add('to', 'must be an E.164 number such as +14155550100');
    if (!isE164(input.from)) bag.add('from', 'must be an E.164 number such as +14155550100');
    if (input.wait_for_beep && !input.machine_detection)
      bag.add('wait_for_beep', 'needs machine_detection: true');
    bag.throwIfAny();

    const row = await inTransaction(deps.db, async (trx) => {
      const workflow = await requirePublishedWorkflow(
        trx,
        actor.workspaceId,
        input.project_id,
        input.workflow_id,
      );
      const number = await phoneNumbersRepo.findByNumber(trx, actor.workspaceId, input.from);
      if (!number || number.project_id !== input.project_id)
        bag.add('from', 'is not a phone number registered to this project');
      bag.throwIfAny();
      await consumeQuota(trx, deps, {
        workspaceId: actor.workspaceId,
        projectId: input.project_id,
        kind: 'calls',
      });
      const now = toDbTime(deps.clock.now());
      const call: CallTable = {
        id: deps.newId(),
        workspace_id: actor.workspaceId,
        project_id: input.project_id,
        workflow_id: workflow.id,
        workflow_version: workflow.published_version,
        session_id: null,
        phone_number_id: number!.id,
        direction: 'outbound',
        status: 'queued',
        from_number: input.from,
        to_number: input.to,
        duration_seconds: null,
        hangup_reason: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        variables: JSON.stringify(input.variables ?? {}),
        sip_call_id: null,
        started_at: null,
        ended_at: null,
        created_at: now,
        updated_at: now,
        // The dialing node, written with the row (not at its first state change, which may come
        // seconds later or never): a queued call without a node is one every node's sweep takes.
        node_id: this.dialer.nodeId ?? null,
        record: input.record ? 1 : 0,
        recording_url: null,
        recording_error: null,
        machine_detection: input.machine_detection ? 1 : 0,
        wait_for_beep: input.machine_detection && input.wait_for_beep ? 1 : 0,
        answered_by: null,
      };
      await callsRepo.insert(trx, call);
      return call;
    });
    this.dialer.dial(row);
    return toCall(row);
  }
}
