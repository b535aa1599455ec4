// Inbound admission (spec 1.1, issue 6 item 1): decides what an INVITE gets before any media is
// set up. The workspace comes from the request-URI host, the trunk is the called number's trunk
// (its allowed_ips checked against the source address), the rules of the number pick the workflow,
// and an admitted call gets its call record (with this node's id: its media will live here), its
// phone session and its quota unit in one transaction. Refusals that a customer should see (no rule matched, quota used up, the workflow
// unpublished) are recorded as failed calls with call.ended; refusals of unknown hosts, numbers or
// sources are not, so strangers cannot fill the store.
import { endCall, type HangupReason } from '../../modules/calls/call-lifecycle.js';
import type { ServiceDeps } from '../../modules/context.js';
import { phoneNumbersRepo, rulesOf } from '../../modules/phone-numbers/phone-numbers.repo.js';
import { trunkAllowedIps } from '../../modules/sip-trunks/sip-trunks.service.js';
import { ipAllowed } from '../../modules/sip-trunks/trunk-fields.js';
import { consumeQuota } from '../../modules/usage/quota.service.js';
import { workflowsRepo } from '../../modules/workflows/workflows.repo.js';
import { QuotaExceededError } from '../../shared/errors.js';
import { inTransaction, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable, PhoneNumberTable } from '../../store/schema.js';
import { evaluateDispatch } from '../../modules/phone-numbers/dispatch/evaluate.js';
import { dispatchCaller } from '../../modules/phone-numbers/dispatch/sip-caller.js';
import { e164FromSipUser, insertPhoneSession, loadGraph, type RunnableCall } from './phone-session.js';

/** The parts of an inbound INVITE that admission reads (the SIP side extracts them). */
export interface InboundInvite {
  /** Host of the request URI, e.g. `ws-0a1b2c3d4e.sip.example.com`. */
  requestUriHost: string;
  /** User part of the request URI (the dialled number at most carriers), if any. */
  requestUriUser: string | null;
  /** User part of the To URI: the called number when the request URI has none. */
  toUser: string | null;
  fromUser: string | null;
  fromHost: string | null;
  /** The Privacy header's value, if any. */
  privacy: string | null;
  /** The address the INVITE came from (the transport's source, not Via). */
  sourceIp: string;
  /** The INVITE's Call-ID, kept on the call record. */
  sipCallId: string;
}

export type AdmissionStatus = 403 | 404 | 480 | 503;

export type Admission =
  | {
      kind: 'reject';
      status: AdmissionStatus;
      /** SIP reason phrase. */
      reason: string;
      /** Why, for the log. */
      why: string;
      /** The failed call record, when the refusal is one the customer is told about. */
      call?: CallTable;
    }
  | ({ kind: 'accept' } & RunnableCall);

export type AdmissionDeps = Pick<ServiceDeps, 'db' | 'dialect' | 'clock' | 'newId' | 'config'> & {
  /** True while the process is shutting down: new calls get 503 so the carrier tries another node. */
  draining?: () => boolean;
};

const PHRASES: Record<AdmissionStatus, string> = {
  403: 'Forbidden',
  404: 'Not Found',
  480: 'Temporarily Unavailable',
  503: 'Service Unavailable',
};

function reject(status: AdmissionStatus, why: string, call?: CallTable): Admission {
  return { kind: 'reject', status, reason: PHRASES[status], why, ...(call ? { call } : {}) };
}

/** The workspace sip_label a request-URI host names, or null when it is not under SIP_DOMAIN. */
export function sipLabelOf(host: string, sipDomain: string): string | null {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  const suffix = `.${sipDomain.toLowerCase().replace(/\.$/, '')}`;
  if (!h.endsWith(suffix)) return null;
  const label = h.slice(0, -suffix.length);
  return /^[a-z0-9-]+$/.test(label) ? label : null;
}

export async function admitInbound(deps: AdmissionDeps, invite: InboundInvite): Promise<Admission> {
  if (deps.draining?.()) return reject(503, 'shutting down');
  const label = sipLabelOf(invite.requestUriHost, deps.config.sip.domain);
  if (label === null) return reject(404, `request-URI host ${invite.requestUriHost} is not ours`);
  const called = e164FromSipUser(invite.requestUriUser) ?? e164FromSipUser(invite.toUser);

  return inTransaction(deps.db, async (trx) => {
    const ws = await trx
      .selectFrom('workspaces')
      .select('id')
      .where('sip_label', '=', label)
      .executeTakeFirst();
    if (!ws) return reject(404, `no workspace has the SIP label ${label}`);
    const number = called === null ? undefined : await phoneNumbersRepo.findByNumber(trx, ws.id, called);
    if (!number) {
      // Only a source some trunk of the workspace admits learns that the number is unknown;
      // everyone else gets 403 whatever they dial, so numbers cannot be probed.
      const admitted = await anyTrunkAdmits(trx, ws.id, invite.sourceIp);
      return admitted
        ? reject(404, `${called ?? 'the called user'} is not a registered number`)
        : reject(403, `source ${invite.sourceIp} is not allowed by any trunk`);
    }
    const trunk = await trx
      .selectFrom('sip_trunks')
      .selectAll()
      .where('id', '=', number.sip_trunk_id)
      .executeTakeFirstOrThrow();
    if (!ipAllowed(trunkAllowedIps(trunk), invite.sourceIp)) {
      return reject(403, `source ${invite.sourceIp} is not in the allowed_ips of trunk ${trunk.id}`);
    }
    return dispatch(trx, deps, invite, number);
  });
}

async function anyTrunkAdmits(ex: Executor, workspaceId: string, source: string): Promise<boolean> {
  const trunks = await ex
    .selectFrom('sip_trunks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .execute();
  return trunks.length === 0 || trunks.some((t) => ipAllowed(trunkAllowedIps(t), source));
}

async function dispatch(
  trx: Executor,
  deps: AdmissionDeps,
  invite: InboundInvite,
  number: PhoneNumberTable,
): Promise<Admission> {
  const now = deps.clock.now();
  const caller = dispatchCaller({
    fromUser: invite.fromUser,
    fromHost: invite.fromHost,
    privacy: invite.privacy,
  });
  const base = { deps, invite, number, caller };
  const { winner } = evaluateDispatch(rulesOf(number), { caller, at: new Date(now) });
  if (!winner) {
    const call = await recordRefusal(trx, { ...base, projectId: number.project_id }, 'no_dispatch_rule');
    return reject(480, 'no dispatch rule matched', call);
  }
  const rule = winner.rule;
  const workflow = await workflowsRepo.find(trx, number.workspace_id, rule.workflow_id);
  if (!workflow || workflow.published_version === null) {
    const call = await recordRefusal(
      trx,
      { ...base, projectId: workflow?.project_id ?? number.project_id, workflowId: rule.workflow_id },
      'workflow_unpublished',
    );
    return reject(480, `workflow ${rule.workflow_id} has no published version`, call);
  }
  const version = workflow.published_version;
  const target = { ...base, projectId: workflow.project_id, workflowId: workflow.id, version };
  try {
    await consumeQuota(trx, deps, {
      workspaceId: number.workspace_id,
      projectId: workflow.project_id,
      kind: 'calls',
    });
  } catch (err) {
    // The quota check throws before it writes, so the transaction is still good for the record.
    if (!(err instanceof QuotaExceededError)) throw err;
    const call = await recordRefusal(trx, target, 'quota_exhausted');
    return reject(480, 'plan quota exhausted', call);
  }
  const graph = await loadGraph(trx, workflow.id, version);
  if (!graph) throw new Error(`workflow ${workflow.id} version ${version} is missing`);
  const variables = rule.variables ?? {};
  const call = await insertCall(trx, { ...target, record: rule.record === true }, variables);
  const session = await insertPhoneSession(trx, deps, call, { id: workflow.id, version }, variables);
  return {
    kind: 'accept',
    call: { ...call, session_id: session.id },
    session,
    workflowVersion: version,
    graph,
    variables,
  };
}

interface CallTarget {
  deps: AdmissionDeps;
  invite: InboundInvite;
  number: PhoneNumberTable;
  caller: string;
  projectId: string;
  workflowId?: string;
  version?: number;
  /** The winning dispatch rule asks for a recording. */
  record?: boolean;
}

async function insertCall(
  trx: Executor,
  t: CallTarget,
  variables: Record<string, unknown>,
): Promise<CallTable> {
  const now = toDbTime(t.deps.clock.now());
  const call: CallTable = {
    id: t.deps.newId(),
    workspace_id: t.number.workspace_id,
    project_id: t.projectId,
    workflow_id: t.workflowId ?? null,
    workflow_version: t.version ?? null,
    session_id: null,
    phone_number_id: t.number.id,
    direction: 'inbound',
    // Inbound calls ring until the SIP side answers them (call-progress answered()).
    status: 'ringing',
    from_number: t.caller,
    to_number: t.number.number,
    duration_seconds: null,
    hangup_reason: null,
    metadata: '{}',
    variables: JSON.stringify(variables),
    sip_call_id: t.invite.sipCallId,
    started_at: null,
    ended_at: null,
    created_at: now,
    updated_at: now,
    // Written with the row, so no other node's sweep (which takes calls without a node) can end
    // the call while this node answers it.
    node_id: t.deps.config.nodeId,
    record: t.record ? 1 : 0,
  };
  await trx.insertInto('calls').values(call).execute();
  return call;
}

/** A refused inbound call the customer is told about: a record that ends `failed` at once. */
async function recordRefusal(trx: Executor, t: CallTarget, reason: HangupReason): Promise<CallTable> {
  const call = await insertCall(trx, t, {});
  await endCall(trx, t.deps, call.id, 'failed', reason);
  return trx.selectFrom('calls').selectAll().where('id', '=', call.id).executeTakeFirstOrThrow();
}
