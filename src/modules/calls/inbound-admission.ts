// Inbound admission (spec 1.1): decides what an INVITE gets before any media is set up, as one
// list of steps (ADMISSION_STEPS below), each with the refusal it gives. The call controller has
// checked the offer (488) and the session timer (422) before it asks. The workspace comes from the
// request-URI host, the trunk is the called number's trunk (its allowed_ips checked against the
// source address), the rules of the number pick the workflow, and an admitted call gets its call
// record (with this node's id: its media will live here), its phone session and its quota unit in
// one transaction. Every refusal of a call to a registered number (a source the number's trunk
// does not allow, a draining node, an offer we cannot carry, no rule matched, the workflow
// unpublished, quota used up) is recorded as a failed call with call.ended to the number's
// project, so the customer sees every outcome; refusals of unknown hosts or numbers are not, so
// strangers cannot fill the store.
import { QuotaExceededError } from '../../shared/errors.js';
import { emitTelemetry } from '../../shared/telemetry.js';
import { inSpan, setActiveAttributes, tracingEnabled } from '../../shared/tracing.js';
import { inTransaction, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable, PhoneNumberTable, WorkflowTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { evaluateDispatch } from '../phone-numbers/dispatch/evaluate.js';
import type { DispatchRule } from '../phone-numbers/dispatch/rule.js';
import { dispatchCaller } from '../phone-numbers/dispatch/sip-caller.js';
import { phoneNumbersRepo, rulesOf } from '../phone-numbers/phone-numbers.repo.js';
import { trunkAllowedIps } from '../sip-trunks/sip-trunks.service.js';
import { sipTrunksRepo } from '../sip-trunks/sip-trunks.repo.js';
import { inboundCarrierMetadata } from '../sip-trunks/carrier-profile.js';
import { ipAllowed } from '../sip-trunks/trunk-fields.js';
import { consumeQuota } from '../usage/quota.service.js';
import { workflowsRepo } from '../workflows/workflows.repo.js';
import { workspacesRepo } from '../workspaces/workspaces.repo.js';
import { endCall, type HangupReason } from './call-lifecycle.js';
import { callsRepo } from './calls.repo.js';
import type { DispatchTarget } from './dispatch-cache.js';
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
  /**
   * Set when the INVITE came on a trunk's registered Contact (the SIP node's trunk manager knows):
   * the workspace is the trunk's, and the called number must be one of the trunk's.
   */
  registeredTrunkId?: string;
  /**
   * The user part of P-Asserted-Identity (or else Remote-Party-ID), if any: the caller's number
   * when the From user is not one. A Privacy header still hides the caller (dispatchCaller).
   */
  assertedUser?: string | null;
  /**
   * The carrier's own header fields that a trunk's provider reads (carrier-profile.ts
   * CARRIER_HEADERS), by lower-case name, e.g. carrier_a's X-Twilio-CallSid.
   */
  carrierHeaders?: Readonly<Record<string, string>>;
  /**
   * Set by the call controller when the INVITE's offer has no format it can carry: admission then
   * refuses it (488) once it knows the number, recording the refusal when the number is ours.
   */
  unusableOffer?: string;
}

export type AdmissionStatus = 403 | 404 | 480 | 488 | 503;

export interface Refusal {
  kind: 'reject';
  status: AdmissionStatus;
  /** SIP reason phrase. */
  reason: string;
  /** Why, for the log. */
  why: string;
  /** The failed call record, when the refusal is one the customer is told about. */
  call?: CallTable;
}

export type Admission = Refusal | ({ kind: 'accept' } & RunnableCall);

export type AdmissionDeps = Pick<
  ServiceDeps,
  'db' | 'dialect' | 'clock' | 'newId' | 'config' | 'dispatchCache'
> & {
  /** True while the process is shutting down: new calls get 503 so the carrier tries another node. */
  draining?: () => boolean;
};

const PHRASES: Record<AdmissionStatus, string> = {
  403: 'Forbidden',
  404: 'Not Found',
  480: 'Temporarily Unavailable',
  488: 'Not Acceptable Here',
  503: 'Service Unavailable',
};

function reject(status: AdmissionStatus, why: string, call?: CallTable): Refusal {
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

/** What the steps learn about the INVITE as they go, each from the ones before it. */
interface Admitting {
  deps: AdmissionDeps;
  invite: InboundInvite;
  trx: Executor;
  label?: string;
  called?: string | null;
  workspaceId?: string;
  number?: PhoneNumberTable;
  /** The called number's trunk (its provider says what of the INVITE the call keeps). */
  trunk?: DispatchTarget['trunk'];
  /** What the dispatch cache knew of the called number (workspace, number, trunk), if anything. */
  cached?: DispatchTarget;
  /** The cache's generation before the store was asked (DispatchCache.set). */
  stamp?: number;
  caller?: string;
  rule?: DispatchRule;
  workflow?: WorkflowTable & { published_version: number };
}

/** A step: undefined to go on, or the refusal that ends admission here. */
type Step = (a: Admitting) => Refusal | undefined | Promise<Refusal | undefined>;

/**
 * Inbound admission, in order. The first needs no store, so a stranger's host costs no
 * transaction; the rest run in the one transaction that records the call (or its refusal).
 */
export const ADMISSION_STEPS: { before: readonly Step[]; inTransaction: readonly Step[] } = {
  before: [
    workspaceLabel, // 404 Not Found: the request-URI host is not under SIP_DOMAIN
  ],
  inTransaction: [
    workspaceOfLabel, // 404 Not Found: no workspace has the label
    calledNumber, // 404 Not Found to a source a trunk admits, 403 Forbidden to anyone else
    trunkAdmitsSource, // 403 Forbidden, recorded (source_not_allowed): the number's trunk does not allow the source
    notDraining, // 503 Service Unavailable, recorded (shutdown): this node is shutting down
    usableOffer, // 488 Not Acceptable Here, recorded (media_unsupported): no format of the offer can be carried
    dispatchRule, // 480 Temporarily Unavailable, recorded (no_dispatch_rule)
    publishedWorkflow, // 480 Temporarily Unavailable, recorded (workflow_unpublished)
    quotaUnit, // 480 Temporarily Unavailable, recorded (quota_exhausted)
  ],
};

export function admitInbound(deps: AdmissionDeps, invite: InboundInvite): Promise<Admission> {
  return inSpan('call.admission', {}, async () => {
    const pre = { deps, invite } as Admitting;
    for (const step of ADMISSION_STEPS.before) {
      const refusal = await runStep(step, pre);
      if (refusal) return refused(step, refusal);
    }
    return inTransaction(deps.db, async (trx) => {
      const a: Admitting = { ...pre, trx };
      for (const step of ADMISSION_STEPS.inTransaction) {
        const refusal = await runStep(step, a);
        if (refusal) return refused(step, refusal);
      }
      return admit(a);
    });
  });
}

/**
 * The `reason` label of switchboard_calls_refused_total for a step's refusal (overload control's
 * own refusals, max_concurrent_calls and max_calls_per_second, come from the SIP stack).
 */
export function refusalReason(step: Step, refusal: Refusal): string {
  switch (step) {
    case notDraining:
      return 'draining';
    case workspaceLabel:
      return 'unknown_domain';
    case workspaceOfLabel:
      return 'unknown_workspace';
    case calledNumber:
      return refusal.status === 403 ? 'source_forbidden' : 'unknown_number';
    case trunkAdmitsSource:
      return 'source_forbidden';
    case usableOffer:
      return 'media_unsupported';
    case dispatchRule:
      return 'no_dispatch_rule';
    case publishedWorkflow:
      return 'workflow_unpublished';
    case quotaUnit:
      return 'quota_exhausted';
    default:
      return 'other';
  }
}

function refused(step: Step, refusal: Refusal): Refusal {
  emitTelemetry({ kind: 'call.refused', reason: refusalReason(step, refusal) });
  return refusal;
}

/** One step, as its own span when tracing is on (named by the step: `admission.dispatchRule`). */
function runStep(step: Step, a: Admitting): ReturnType<Step> {
  if (!tracingEnabled()) return step(a);
  return inSpan(`admission.${step.name}`, {}, async () => {
    const refusal = await step(a);
    if (refusal)
      setActiveAttributes({ 'sip.response.status_code': refusal.status, 'switchboard.refusal': refusal.why });
    return refusal;
  });
}

async function notDraining(a: Admitting): Promise<Refusal | undefined> {
  if (!a.deps.draining?.()) return undefined;
  const call = await recordRefusal(a, { projectId: a.number!.project_id }, 'shutdown');
  return reject(503, 'shutting down', call);
}

async function usableOffer(a: Admitting): Promise<Refusal | undefined> {
  if (a.invite.unusableOffer === undefined) return undefined;
  const call = await recordRefusal(a, { projectId: a.number!.project_id }, 'media_unsupported');
  return reject(488, a.invite.unusableOffer, call);
}

function workspaceLabel(a: Admitting): Refusal | undefined {
  a.called = e164FromSipUser(a.invite.requestUriUser) ?? e164FromSipUser(a.invite.toUser);
  // A registered trunk's INVITE names our Contact, not a workspace host: the trunk says whose it is.
  if (a.invite.registeredTrunkId !== undefined) return undefined;
  const label = sipLabelOf(a.invite.requestUriHost, a.deps.config.sip.domain);
  if (label === null) return reject(404, `request-URI host ${a.invite.requestUriHost} is not ours`);
  a.label = label;
  const cache = a.deps.dispatchCache;
  if (cache && a.called) {
    a.stamp = cache.stamp;
    a.cached = cache.get(label, a.called);
  }
  return undefined;
}

async function workspaceOfLabel(a: Admitting): Promise<Refusal | undefined> {
  const trunkId = a.invite.registeredTrunkId;
  if (trunkId !== undefined) {
    const trunk = await sipTrunksRepo.registered(a.trx, trunkId);
    if (!trunk) return reject(404, `trunk ${trunkId} does not register`);
    a.workspaceId = trunk.workspace_id;
    return undefined;
  }
  if (a.cached) {
    a.workspaceId = a.cached.workspaceId;
    return undefined;
  }
  const id = await workspacesRepo.idBySipLabel(a.trx, a.label!);
  if (id === undefined) return reject(404, `no workspace has the SIP label ${a.label}`);
  a.workspaceId = id;
  return undefined;
}

async function calledNumber(a: Admitting): Promise<Refusal | undefined> {
  const { called, workspaceId, invite } = a;
  if (invite.registeredTrunkId !== undefined) return trunkNumber(a, invite.registeredTrunkId);
  if (a.cached) {
    found(a, a.cached.number);
    return undefined;
  }
  const number = called ? await phoneNumbersRepo.findByNumber(a.trx, workspaceId!, called) : undefined;
  if (number) {
    found(a, number);
    return undefined;
  }
  // Only a source some trunk of the workspace admits learns that the number is unknown;
  // everyone else gets 403 whatever they dial, so numbers cannot be probed.
  const trunks = await sipTrunksRepo.all(a.trx, workspaceId!);
  const admitted = trunks.length === 0 || trunks.some((t) => ipAllowed(trunkAllowedIps(t), invite.sourceIp));
  return admitted
    ? reject(404, `${called ?? 'the called user'} is not a registered number`)
    : reject(403, `source ${invite.sourceIp} is not allowed by any trunk`);
}

/**
 * The called number of an INVITE on a registered Contact: one of the trunk's numbers, named by the
 * Request-URI or To user; when neither names one (carriers often send the account name) and the
 * trunk carries exactly one number, that one.
 */
async function trunkNumber(a: Admitting, trunkId: string): Promise<Refusal | undefined> {
  const numbers = await phoneNumbersRepo.onTrunk(a.trx, a.workspaceId!, trunkId);
  const named = a.called ? numbers.find((n) => n.number === a.called) : undefined;
  const number = named ?? (numbers.length === 1 ? numbers[0] : undefined);
  if (!number) return reject(404, `${a.called ?? 'the called user'} is not a number of trunk ${trunkId}`);
  found(a, number);
  return undefined;
}

/** The called number is ours: from here on every refusal is recorded, naming the caller. */
function found(a: Admitting, number: PhoneNumberTable): void {
  a.number = number;
  const { invite } = a;
  // Who is calling, as dispatch and every record of this call (a refusal's too) name them.
  a.caller = dispatchCaller({
    fromUser: invite.fromUser,
    fromHost: invite.fromHost,
    privacy: invite.privacy,
    assertedUser: invite.assertedUser ?? null,
  });
}

async function trunkAdmitsSource(a: Admitting): Promise<Refusal | undefined> {
  let trunk = a.cached?.trunk;
  if (!trunk) {
    const row = await sipTrunksRepo.load(a.trx, a.number!.sip_trunk_id);
    trunk = { id: row.id, provider: row.provider, allowed_ips: row.allowed_ips };
    // Found through the workspace's label (a registered trunk's INVITE is not cached): remembered.
    if (a.label !== undefined && a.called && a.stamp !== undefined) {
      const target = { workspaceId: a.workspaceId!, number: a.number!, trunk };
      a.deps.dispatchCache?.set(a.label, a.called, target, a.stamp);
    }
  }
  a.trunk = trunk;
  if (ipAllowed(trunkAllowedIps(trunk), a.invite.sourceIp)) return undefined;
  const call = await recordRefusal(a, { projectId: a.number!.project_id }, 'source_not_allowed');
  return reject(403, `source ${a.invite.sourceIp} is not in the allowed_ips of trunk ${trunk.id}`, call);
}

async function dispatchRule(a: Admitting): Promise<Refusal | undefined> {
  const { number } = a;
  const { winner } = evaluateDispatch(rulesOf(number!), {
    caller: a.caller!,
    at: new Date(a.deps.clock.now()),
  });
  if (winner) {
    a.rule = winner.rule;
    setActiveAttributes({ 'switchboard.workflow_id': winner.rule.workflow_id });
    return undefined;
  }
  const call = await recordRefusal(a, { projectId: number!.project_id }, 'no_dispatch_rule');
  return reject(480, 'no dispatch rule matched', call);
}

async function publishedWorkflow(a: Admitting): Promise<Refusal | undefined> {
  const { rule, number } = a;
  const workflow = await workflowsRepo.find(a.trx, number!.workspace_id, rule!.workflow_id);
  if (workflow && workflow.published_version !== null) {
    a.workflow = workflow as WorkflowTable & { published_version: number };
    return undefined;
  }
  const target = { projectId: workflow?.project_id ?? number!.project_id, workflowId: rule!.workflow_id };
  const call = await recordRefusal(a, target, 'workflow_unpublished');
  return reject(480, `workflow ${rule!.workflow_id} has no published version`, call);
}

async function quotaUnit(a: Admitting): Promise<Refusal | undefined> {
  const workflow = a.workflow!;
  try {
    await consumeQuota(a.trx, a.deps, {
      workspaceId: a.number!.workspace_id,
      projectId: workflow.project_id,
      kind: 'calls',
    });
    return undefined;
  } catch (err) {
    // The quota check throws before it writes, so the transaction is still good for the record.
    if (!(err instanceof QuotaExceededError)) throw err;
    const call = await recordRefusal(a, targetOf(workflow), 'quota_exhausted');
    return reject(480, 'plan quota exhausted', call);
  }
}

function targetOf(workflow: WorkflowTable & { published_version: number }): CallTarget {
  return { projectId: workflow.project_id, workflowId: workflow.id, version: workflow.published_version };
}

/** Every step passed: the call record, its phone session, and what the media side runs. */
async function admit(a: Admitting): Promise<Admission> {
  const workflow = a.workflow!;
  const version = workflow.published_version;
  const graph = await loadGraph(a.trx, workflow.id, version);
  if (!graph) throw new Error(`workflow ${workflow.id} version ${version} is missing`);
  const variables = a.rule!.variables ?? {};
  // The call row names its session from the start: one write each.
  const target = { ...targetOf(workflow), record: a.rule!.record === true };
  const call = await insertCall(a, target, variables, true);
  const session = await insertPhoneSession(a.trx, a.deps, call, { id: workflow.id, version }, variables);
  return {
    kind: 'accept',
    call,
    session,
    workflowVersion: version,
    graph,
    variables,
  };
}

interface CallTarget {
  projectId: string;
  workflowId?: string;
  version?: number;
  /** The winning dispatch rule asks for a recording. */
  record?: boolean;
}

async function insertCall(
  a: Admitting,
  t: CallTarget,
  variables: Record<string, unknown>,
  withSession = false,
): Promise<CallTable> {
  const { deps, number, invite } = a;
  const now = toDbTime(deps.clock.now());
  const id = deps.newId();
  const sessionId = withSession ? deps.newId() : null;
  const call: CallTable = {
    id,
    workspace_id: number!.workspace_id,
    project_id: t.projectId,
    workflow_id: t.workflowId ?? null,
    workflow_version: t.version ?? null,
    session_id: sessionId,
    phone_number_id: number!.id,
    direction: 'inbound',
    // Inbound calls ring until the SIP side answers them (CallRecords.answered).
    status: 'ringing',
    from_number: a.caller!,
    to_number: number!.number,
    duration_seconds: null,
    hangup_reason: null,
    // What the carrier says about the call (carrier_a: its call and account ids), so a call can be
    // found in the carrier's logs; nothing for generic trunks.
    metadata: JSON.stringify(
      inboundCarrierMetadata(a.trunk?.provider ?? 'generic', invite.carrierHeaders ?? {}),
    ),
    variables: JSON.stringify(variables),
    sip_call_id: invite.sipCallId,
    started_at: null,
    ended_at: null,
    created_at: now,
    updated_at: now,
    // Written with the row, so no other node's sweep (which takes calls without a node) can end
    // the call while this node answers it.
    node_id: deps.config.nodeId,
    record: t.record ? 1 : 0,
  };
  await callsRepo.insertAdmitted(a.trx, call);
  return call;
}

/** A refused inbound call the customer is told about: a record that ends `failed` at once. */
async function recordRefusal(a: Admitting, t: CallTarget, reason: HangupReason): Promise<CallTable> {
  const call = await insertCall(a, t, {});
  await endCall(a.trx, a.deps, call.id, { status: 'failed', reason }, call);
  return callsRepo.load(a.trx, call.id);
}
