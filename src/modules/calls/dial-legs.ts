// Dial legs as calls: a leg that a running workflow dials (a `dial` node's party, a warm
// transfer's human) is a call record of its own: direction `outbound`, `parent_call_id` the call
// it was dialled from, the parent's workflow and version (the ones that dialled it), the parent's
// node (so that node's restart sweep closes it). It moves through spec 3.1's states like a
// POST /calls call (queued → ringing → in_progress → completed, or no_answer / busy / failed /
// cancelled), with call.started and call.ended, counts one unit of the calls quota when it is
// opened and meters voice_minutes when it ends. The parent keeps its own record: the bridged talk
// is metered on both (two legs through the trunk, as the carrier bills them).
//
// A leg a web session's `dial` node places (the browser bridged to it) has no parent call: its
// `session_id` is the web session that dialled it, `parent_call_id` null, the session's workflow
// and version, and this process's node_id (whose sweep ends it after a crash).
//
// A leg refused by the calls quota is recorded `failed` / `quota_exhausted` with call.ended (the
// spec's "call.ended for every outcome"), takes no unit, and is never dialled.
import { QuotaExceededError } from '../../shared/errors.js';
import { inTransaction, toDbTime } from '../../store/database.js';
import type { CallTable, SessionTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { consumeQuota } from '../usage/quota.service.js';
import { endCall, markAnswered, markRinging, type HangupReason } from './call-lifecycle.js';
import { callsRepo } from './calls.repo.js';
import type { CallStatus } from './calls.schema.js';

type Deps = Pick<ServiceDeps, 'db' | 'clock' | 'newId' | 'dialect' | 'logger'>;

/** Where a leg goes: the number it leaves from (its trunk's) and the destination as dialled. */
export interface LegTarget {
  from_number: string;
  phone_number_id: string | null;
  /** E.164 for a tel: destination, else the SIP URI. */
  to: string;
}

/** A final status of a leg and its hangup_reason. */
export interface LegEnding {
  status: Exclude<CallStatus, 'queued' | 'ringing' | 'in_progress'>;
  reason: HangupReason;
}

/** The destination as the leg's `to`: the number of a tel: URI, else the URI itself. */
export function legTo(destination: string): string {
  const tel = /^tel:(\+?[0-9]+)/i.exec(destination);
  return tel ? tel[1]! : destination;
}

/**
 * The failure reason of a second leg (transfer-warm.ts) as the leg's ending, given whether it had
 * been answered. The same rows as a POST /calls call's (outbound-outcome.ts) where they meet.
 */
export function legEnding(reason: string | undefined, answered: boolean): LegEnding {
  if (answered) {
    if (reason === 'caller_hangup') return { status: 'completed', reason: 'caller_hangup' };
    // Machine detection found a machine: the workflow's side hung the leg up before the bridge.
    if (reason === 'machine') return { status: 'completed', reason: 'workflow_hangup' };
    if (reason === 'human_hangup' || reason === undefined)
      return { status: 'completed', reason: 'callee_hangup' };
    return { status: 'failed', reason: 'carrier_error' };
  }
  switch (reason) {
    case 'no_answer':
      return { status: 'no_answer', reason: 'ring_timeout' };
    case 'busy':
      return { status: 'busy', reason: 'busy' };
    case 'invalid_number':
      return { status: 'failed', reason: 'invalid_number' };
    case 'trunk_auth_failed':
      return { status: 'failed', reason: 'trunk_auth_failed' };
    case 'no_route':
      return { status: 'failed', reason: 'no_route' };
    case 'trunk_unreachable':
      return { status: 'failed', reason: 'trunk_unreachable' };
    case 'caller_hangup':
    case 'aborted':
      return { status: 'cancelled', reason: 'caller_cancelled' };
    default:
      // declined (603), sip_<status>, leg_failed (timer B, transport), media_failed
      return { status: 'failed', reason: 'carrier_error' };
  }
}

/**
 * One leg's record, from its opening to its end. The steps are written in the order they are
 * called (one after the other, so an end never overtakes the answer before it); each at most once,
 * and nothing after the end. A store error is logged: the leg's talk goes on without its record.
 */
export class DialLegRecord {
  private answeredAt = false;
  private over: boolean;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Deps,
    readonly id: string,
    ended = false,
  ) {
    this.over = ended;
  }

  /** The far end answered (in_progress was asked for). */
  get answered(): boolean {
    return this.answeredAt;
  }

  private step(what: string, write: () => Promise<unknown>): Promise<void> {
    this.chain = this.chain.then(write).then(
      () => undefined,
      (err: unknown) =>
        this.deps.logger.warn({ err, call_id: this.id, step: what }, 'dial leg: record not written'),
    );
    return this.chain;
  }

  /** queued → ringing (an 18x). */
  ringing(): Promise<void> {
    if (this.over || this.answeredAt) return this.chain;
    return this.step('ringing', () => markRinging(this.deps.db, this.deps, this.id));
  }

  /** → in_progress, call.started; with machine detection its verdict first (so call.started has it). */
  answer(answeredBy?: 'human' | 'machine' | 'unknown'): Promise<void> {
    if (this.over || this.answeredAt) return this.chain;
    this.answeredAt = true;
    return this.step('answer', () =>
      inTransaction(this.deps.db, async (trx) => {
        if (answeredBy) {
          await callsRepo.setAnsweredBy(trx, this.id, answeredBy, toDbTime(this.deps.clock.now()));
        }
        await markAnswered(trx, this.deps, this.id);
      }),
    );
  }

  /** The final status, call.ended, and voice_minutes when it was connected. */
  end(ending: LegEnding): Promise<void> {
    if (this.over) return this.chain;
    this.over = true;
    return this.step('end', () =>
      inTransaction(this.deps.db, (trx) =>
        endCall(trx, this.deps, this.id, { status: ending.status, reason: ending.reason, meter: true }),
      ),
    );
  }
}

/** What a leg takes from whatever dialled it: a call (its parent) or a web session. */
type LegOrigin = Pick<
  CallTable,
  | 'workspace_id'
  | 'project_id'
  | 'workflow_id'
  | 'workflow_version'
  | 'session_id'
  | 'node_id'
  | 'parent_call_id'
>;

/**
 * Opens the record of a leg dialled from `parent` (queued), taking one unit of the calls quota in
 * the same transaction. With the quota used up the leg is recorded failed / quota_exhausted at
 * once and `refused` is returned: the leg must not be dialled.
 */
export function openDialLeg(
  deps: Deps,
  parent: CallTable,
  target: LegTarget,
): Promise<{ record: DialLegRecord; refused: boolean }> {
  return openLeg(
    deps,
    { ...parent, session_id: null, node_id: parent.node_id, parent_call_id: parent.id },
    target,
  );
}

/** As openDialLeg, for a leg a web session dialled (`nodeId`: this process's SWITCHBOARD_NODE_ID). */
export function openSessionDialLeg(
  deps: Deps,
  session: Pick<SessionTable, 'id' | 'workspace_id' | 'project_id' | 'workflow_id' | 'workflow_version'>,
  nodeId: string,
  target: LegTarget,
): Promise<{ record: DialLegRecord; refused: boolean }> {
  return openLeg(
    deps,
    {
      workspace_id: session.workspace_id,
      project_id: session.project_id,
      workflow_id: session.workflow_id,
      workflow_version: session.workflow_version,
      session_id: session.id,
      node_id: nodeId,
      parent_call_id: null,
    },
    target,
  );
}

async function openLeg(
  deps: Deps,
  parent: LegOrigin,
  target: LegTarget,
): Promise<{ record: DialLegRecord; refused: boolean }> {
  const id = deps.newId();
  const now = toDbTime(deps.clock.now());
  const row: CallTable = {
    id,
    workspace_id: parent.workspace_id,
    project_id: parent.project_id,
    workflow_id: parent.workflow_id,
    workflow_version: parent.workflow_version,
    session_id: parent.session_id,
    phone_number_id: target.phone_number_id,
    direction: 'outbound',
    status: 'queued',
    from_number: target.from_number,
    to_number: target.to,
    duration_seconds: null,
    hangup_reason: null,
    metadata: '{}',
    variables: '{}',
    sip_call_id: null,
    started_at: null,
    ended_at: null,
    created_at: now,
    updated_at: now,
    node_id: parent.node_id,
    parent_call_id: parent.parent_call_id ?? null,
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      await consumeQuota(trx, deps, {
        workspaceId: parent.workspace_id,
        projectId: parent.project_id,
        kind: 'calls',
      });
      await callsRepo.insert(trx, row);
    });
    return { record: new DialLegRecord(deps, id), refused: false };
  } catch (err) {
    if (!(err instanceof QuotaExceededError)) throw err;
  }
  await inTransaction(deps.db, async (trx) => {
    await callsRepo.insert(trx, row);
    await endCall(trx, deps, id, { status: 'failed', reason: 'quota_exhausted' });
  });
  return { record: new DialLegRecord(deps, id, true), refused: true };
}
