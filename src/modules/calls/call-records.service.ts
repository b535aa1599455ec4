// The call records service: every read and write of calls and their phone sessions that the call
// controller (src/telephony/calls) needs, behind the CallRecords interface it is given. Admission's
// insert and refusal records (inbound-admission.ts), ringing, the answer (→ in_progress,
// call.started, the phone session active), the end (call-lifecycle endCall, the one way a call
// ends, with its session and voice minutes), a cancel, the media's usage, the restart and
// shutdown sweeps (call-sweep.ts) and the lookups of trunks and numbers. Each method is one
// transaction, so telephony never holds one open across the network.
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable, PhoneNumberTable, SessionTable, SipTrunkTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { phoneNumbersRepo } from '../phone-numbers/phone-numbers.repo.js';
import { sessionsRepo } from '../sessions/sessions.repo.js';
import { sipTrunksRepo } from '../sip-trunks/sip-trunks.repo.js';
import { recordUsage, type UsageRecord } from '../usage/usage.service.js';
import { endingOf, SESSION_END_REASON, type EndedBy, type SweepReason } from './call-endings.js';
import { answerRow, endCall, markRinging, type CallEnding } from './call-lifecycle.js';
import { closeStaleCalls } from './call-sweep.js';
import { callsRepo } from './calls.repo.js';
import { admitInbound, type Admission, type InboundInvite } from './inbound-admission.js';
import { insertPhoneSession, loadGraph, type RunnableCall } from './phone-session.js';

export type { EndedBy } from './call-endings.js';
export type { CallEnding } from './call-lifecycle.js';
export type { Admission, InboundInvite } from './inbound-admission.js';
export type { RunnableCall } from './phone-session.js';
/** The stored call row, as the call controller sees it. */
export type CallRecord = CallTable;
/** A phone session row, which a call's workflow runs in. */
export type SessionRecord = SessionTable;
/** A SIP trunk row, as the call controller dials through it. */
export type TrunkRecord = SipTrunkTable;

export type RecordsDeps = Pick<ServiceDeps, 'db' | 'clock' | 'newId' | 'dispatchCache'>;

/** What the call controller asks of the store, and only this. */
export interface CallRecords {
  /** Inbound admission: a refusal (recorded when the customer should see it) or the call to run. */
  admit(invite: InboundInvite, draining?: () => boolean): Promise<Admission>;
  /** queued → ringing (180/183). */
  ringing(callId: string): Promise<void>;
  /** The call was answered; null when it was no longer waiting for an answer. */
  answered(callId: string): Promise<RunnableCall | null>;
  /** Ends the call as `by` ended it; null when it had ended already (nothing is emitted twice). */
  ended(callId: string, by: EndedBy): Promise<CallRecord | null>;
  /** Ends the call with this status and reason (endCall in a transaction of its own). */
  end(callId: string, ending: CallEnding): Promise<CallRecord | null>;
  /** A cancel of a call not answered yet (queued or ringing); nothing if it is past that. */
  cancelUnanswered(callId: string): Promise<void>;
  /** TTS characters and STT seconds a call's media used, under the providers that served them. */
  meterMedia(
    call: Pick<CallRecord, 'workspace_id' | 'project_id'>,
    usage: { ttsCharacters: number; sttSeconds: number },
    providers: { tts: string; stt: string | null },
  ): Promise<void>;
  /** Ends this node's live calls left by a restart or a drain (call-sweep.ts). */
  sweep(reason: SweepReason): Promise<{ calls: number; orphanSessions: number }>;
  /** The trunk of the call's registered number, or undefined (no number, or it went away). */
  trunkOfCall(call: Pick<CallRecord, 'phone_number_id'>): Promise<TrunkRecord | undefined>;
  /** Stores answering-machine detection's verdict on the call. */
  setAnsweredBy(callId: string, answeredBy: string): Promise<void>;
  /** A number registered to the workspace (a dial node's `from`), or undefined. */
  numberOf(workspaceId: string, number: string): Promise<Pick<PhoneNumberTable, 'id' | 'number'> | undefined>;
}

function workflowOf(call: CallTable): { id: string; version: number } {
  if (call.workflow_id === null || call.workflow_version === null) {
    throw new Error(`call ${call.id} has no workflow to run`);
  }
  return { id: call.workflow_id, version: call.workflow_version };
}

/** The seed variables of a call's workflow. */
function variablesOf(call: CallTable): Record<string, unknown> {
  const variables = parseJson<Record<string, unknown>>(call.variables, {});
  // Answering-machine detection ran before the answer is recorded (call-recording.ts): the
  // workflow reads its verdict as the variable answered_by.
  if (call.answered_by) variables.answered_by = call.answered_by;
  return variables;
}

/**
 * The call was answered (inbound: we sent 200 and got the ACK; outbound: 2xx and our ACK):
 * in_progress with call.started, and its phone session active, created first for an outbound call
 * (outbound sessions are made on answer, so an unanswered call runs no workflow). Returns what the
 * media side needs to run the workflow, or null when the call was not waiting for an answer.
 */
export async function answerCall(
  trx: Executor,
  deps: RecordsDeps,
  callId: string,
): Promise<RunnableCall | null> {
  // One statement answers the call and hands its row back. An outbound call has no session yet:
  // it gets its phone session now, active from the start.
  let inserted: SessionTable | undefined;
  const call = await answerRow(trx, deps, callId, async (row) => {
    const workflow = workflowOf(row);
    inserted = await insertPhoneSession(trx, deps, row, workflow, variablesOf(row), 'active');
    return inserted.id;
  });
  if (!call) return null;
  const workflow = workflowOf(call);
  const variables = variablesOf(call);
  const session =
    inserted ??
    (await sessionsRepo.activateReturning(trx, call.session_id!, toDbTime(deps.clock.now()))) ??
    (await sessionsRepo.load(trx, call.session_id!));
  const graph = await loadGraph(trx, workflow.id, workflow.version);
  if (!graph) throw new Error(`workflow ${workflow.id} version ${workflow.version} is missing`);
  return { call, session, workflowVersion: workflow.version, graph, variables };
}

export class CallRecordsService implements CallRecords {
  constructor(
    private readonly deps: Pick<
      ServiceDeps,
      'db' | 'dialect' | 'clock' | 'newId' | 'config' | 'dispatchCache'
    >,
  ) {}

  admit(invite: InboundInvite, draining?: () => boolean): Promise<Admission> {
    return admitInbound({ ...this.deps, ...(draining ? { draining } : {}) }, invite);
  }

  async ringing(callId: string): Promise<void> {
    await inTransaction(this.deps.db, (trx) => markRinging(trx, this.deps, callId));
  }

  answered(callId: string): Promise<RunnableCall | null> {
    return inTransaction(this.deps.db, (trx) => answerCall(trx, this.deps, callId));
  }

  ended(callId: string, by: EndedBy): Promise<CallRecord | null> {
    return inTransaction(this.deps.db, async (trx) => {
      const call = await callsRepo.find(trx, callId);
      if (!call) return null;
      const { status, reason } = endingOf(call, by);
      const ending = { status, reason, sessionReason: SESSION_END_REASON[by], meter: true };
      return endCall(trx, this.deps, callId, ending, call);
    });
  }

  end(callId: string, ending: CallEnding): Promise<CallRecord | null> {
    return inTransaction(this.deps.db, (trx) => endCall(trx, this.deps, callId, ending));
  }

  async cancelUnanswered(callId: string): Promise<void> {
    const sessionReason: SessionEndReason = SESSION_END_REASON.caller;
    await this.end(callId, {
      status: 'cancelled',
      reason: 'caller_cancelled',
      sessionReason,
      from: ['queued', 'ringing'],
    });
  }

  async meterMedia(
    call: Pick<CallRecord, 'workspace_id' | 'project_id'>,
    usage: { ttsCharacters: number; sttSeconds: number },
    providers: { tts: string; stt: string | null },
  ): Promise<void> {
    const at = this.deps.clock.now();
    const base = { workspaceId: call.workspace_id, projectId: call.project_id, at };
    const records: UsageRecord[] = [];
    if (usage.ttsCharacters > 0) {
      records.push({
        ...base,
        metric: 'tts_characters',
        provider: providers.tts,
        quantity: usage.ttsCharacters,
      });
    }
    const sttSeconds = Math.ceil(usage.sttSeconds);
    if (sttSeconds > 0) {
      records.push({ ...base, metric: 'stt_seconds', provider: providers.stt, quantity: sttSeconds });
    }
    if (records.length === 0) return;
    // One row is one statement, atomic by itself: no transaction around it.
    if (records.length === 1) return recordUsage(this.deps.db, records[0]!);
    await inTransaction(this.deps.db, async (trx) => {
      for (const r of records) await recordUsage(trx, r);
    });
  }

  sweep(reason: SweepReason): Promise<{ calls: number; orphanSessions: number }> {
    return closeStaleCalls(this.deps, reason);
  }

  trunkOfCall(call: Pick<CallRecord, 'phone_number_id'>): Promise<TrunkRecord | undefined> {
    return sipTrunksRepo.ofNumber(this.deps.db, call.phone_number_id);
  }

  setAnsweredBy(callId: string, answeredBy: string): Promise<void> {
    return callsRepo.setAnsweredBy(this.deps.db, callId, answeredBy, toDbTime(this.deps.clock.now()));
  }

  numberOf(
    workspaceId: string,
    number: string,
  ): Promise<Pick<PhoneNumberTable, 'id' | 'number'> | undefined> {
    return phoneNumbersRepo.findByNumber(this.deps.db, workspaceId, number);
  }
}
