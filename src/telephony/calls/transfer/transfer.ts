// The transferer a live call runs transfer nodes through, and the dialler it runs dial nodes
// through (TransferContext, transfer-context.ts): `blind` (transfer_call) REFERs the caller
// elsewhere (transfer-blind.ts), `warm` (transfer_to_human) dials the human, announces and bridges
// (transfer-warm.ts), and the dialler does what `warm` does without the announcement. All look up
// the trunk of the call's number first: a tel: destination needs it (Refer-To host, INVITE route
// and credentials; see transfer-route.ts).
//
// Failure reasons (TransferOutcome.reason, the node's `transfer_failure_reason` variable):
//   both   invalid_destination (not tel:/sip:), caller_hangup
//   blind  refer_rejected_<status>, refer_timeout, dialog_gone, sip_<status> (the final NOTIFY's
//          sipfrag), subscription_terminated, notify_timeout
//   warm   (and a dial node's leg) no_route, no_answer, busy, declined, invalid_number, trunk_auth_failed, sip_<status>,
//          leg_failed, media_failed, human_hangup, trunk_unreachable (the leg would leave through
//          a trunk with health_check on whose OPTIONS pings go unanswered: no INVITE is sent),
//          machine (with machine detection: an answering machine answered; the leg is hung up)
// A blind transfer's REFER goes in the caller's own dialog, not to the termination host, so it
// does not look at the trunk's health.
// A warm leg (and so a dial node's) takes its party's REFER once bridged (transfer-handon.ts): the
// Refer-To goes where a warm destination would, through the same trunk.
import type { AnsweredBy } from '../../../audio/amd.js';
import type { Logger } from '../../../shared/logger.js';
import { blindTransfer } from './transfer-blind.js';
import type { SecondLegDialler, TransferContext, Transferer, TransferResult } from './transfer-context.js';
import { onTrunk, ourNumber, referToUri, warmTarget, type DialTarget } from './transfer-route.js';
import { outboundProfile, type OutboundProfile } from '../../../modules/sip-trunks/carrier-profile.js';
import { ringbackCadence } from '../call-media/ringback.js';
import {
  rtpCaller,
  warmTransfer,
  type Announcer,
  type CallerSide,
  type WarmTransferRequest,
} from './transfer-warm.js';
import { CallRecordsService, type TrunkRecord } from '../../../modules/calls/call-records.service.js';
import {
  legEnding,
  legTo,
  openDialLeg,
  type DialLegRecord,
  type LegTarget,
} from '../../../modules/calls/dial-legs.js';

export interface TransfererOptions {
  /** Speaks a warm transfer's announcement; without it the human is bridged straight away. */
  announcer?: Announcer;
  /** Test hook: a warm transfer's bridge and human media once bridged. */
  onBridge?: WarmTransferRequest['onBridge'];
}

export function createTransferer(options: TransfererOptions = {}): Transferer {
  return async (ctx, destination, transfer): Promise<TransferResult> => {
    const { deps, call } = ctx;
    const logger: Pick<Logger, 'info' | 'warn'> = deps.logger;
    const log = { call_id: call.id, mode: transfer.mode, destination };
    const trunk = await trunkOf(ctx);
    if (transfer.mode === 'blind') {
      const referTo = referToUri(destination, trunk);
      if (referTo === null) return { status: 'failed', reason: 'invalid_destination' };
      const outcome = await blindTransfer({
        leg: ctx.leg,
        restoreRequests: ctx.restoreRequests,
        clock: deps.clock,
        referTo,
        referredBy: `sip:${ourNumber(call)}@${ctx.local.host}`,
        signal: transfer.signal,
        callerGone: ctx.callerGone,
        onProgress: (e) => logger.info({ ...log, [e.kind]: e.status }, 'blind transfer progress'),
      });
      logger.info({ ...log, refer_to: referTo, ...outcome }, 'blind transfer done');
      return outcome;
    }
    return secondLeg(callLeg(ctx), trunk, destination, {
      signal: transfer.signal,
      ...(transfer.timeoutMs !== undefined ? { ringTimeoutMs: transfer.timeoutMs } : {}),
      ...(transfer.announcement !== undefined ? { announcement: transfer.announcement } : {}),
      ...(transfer.machineDetection ? { machineDetection: true } : {}),
      ...(options.announcer ? { announcer: options.announcer } : {}),
      ...(options.onBridge ? { onBridge: options.onBridge } : {}),
    });
  };
}

/** The dial node's dialler: a warm transfer's second leg without an announcement. */
export function createSecondLegDialler(options: Pick<TransfererOptions, 'onBridge'> = {}): SecondLegDialler {
  return async (ctx, destination, dial): Promise<TransferResult> =>
    secondLeg(callLeg(ctx), await trunkOf(ctx), destination, {
      signal: dial.signal,
      ...(dial.timeoutMs !== undefined ? { ringTimeoutMs: dial.timeoutMs } : {}),
      ...(dial.machineDetection ? { machineDetection: true } : {}),
      ...(options.onBridge ? { onBridge: options.onBridge } : {}),
    });
}

/** The trunk of the call's number (a tel: destination leaves through it). */
function trunkOf(ctx: TransferContext): Promise<TrunkRecord | undefined> {
  return (ctx.records ?? new CallRecordsService(ctx.deps)).trunkOfCall(ctx.call);
}

/**
 * What a second leg needs of what it is dialled from: a call (TransferContext) or a web session
 * (web-leg.ts), the node's SIP side, and the caller's line it is bridged to.
 */
export interface LegContext extends Pick<
  TransferContext,
  | 'deps'
  | 'stack'
  | 'local'
  | 'ports'
  | 'pacer'
  | 'mediaTimeoutMs'
  | 'mediaHoldTimeoutMs'
  | 'pace'
  | 'resolve'
  | 'callerGone'
  | 'suspendMedia'
  | 'resumeMedia'
  | 'meterTts'
  | 'callerDigits'
> {
  caller: CallerSide;
  /** The registered number the leg leaves from (caller ID) and its id (its trunk's). */
  from: { number: string; phone_number_id: string | null };
  /** The call or session id the leg's logs name. */
  logId: string;
  /** Opens the leg's call record (queued, a calls unit), or records it refused. */
  open: (target: LegTarget) => Promise<{ record: DialLegRecord; refused: boolean }>;
}

/** A call's second leg: from its number, bridged to its RTP, recorded with the call as parent. */
function callLeg(ctx: TransferContext): LegContext {
  return {
    ...ctx,
    caller: rtpCaller(ctx.rtp),
    from: { number: ourNumber(ctx.call), phone_number_id: ctx.call.phone_number_id },
    logId: ctx.call.id,
    open: (target) => openDialLeg(ctx.deps, ctx.call, target),
  };
}

/** What a warm transfer and a dial node set differently on the second leg. */
type LegChoices = Pick<
  WarmTransferRequest,
  'signal' | 'ringTimeoutMs' | 'announcement' | 'announcer' | 'onBridge' | 'machineDetection'
>;

/**
 * A second leg to `destination` through the trunk of the `from` number, bridged to the caller
 * (transfer-warm.ts), recorded as a call of its own (modules/calls/dial-legs.ts): opened before
 * the INVITE (a leg the calls quota refuses is never dialled), ringing on an 18x, in_progress on
 * the answer, ended with the transfer's outcome or when the bridge is over.
 */
export async function secondLeg(
  ctx: LegContext,
  trunk: TrunkRecord | undefined,
  destination: string,
  choices: LegChoices,
): Promise<TransferResult> {
  const route = warmTarget(destination, trunk, ctx.deps);
  if (route === null && !/^(tel|sips?):/i.test(destination)) {
    return { status: 'failed', reason: 'invalid_destination' };
  }
  const { record, refused } = await ctx.open({
    from_number: ctx.from.number,
    phone_number_id: ctx.from.phone_number_id,
    to: legTo(destination),
  });
  const callId = record.id;
  if (refused) return { status: 'failed', reason: 'quota_exhausted', callId };
  if (route === null) {
    await record.end(legEnding('no_route', false));
    return { status: 'failed', reason: 'no_route', callId };
  }
  const through = trunk !== undefined && onTrunk(route.target.host, trunk) ? trunk : undefined;
  if (through && trunkDown(ctx, through, destination)) {
    await record.end(legEnding('trunk_unreachable', false));
    return { status: 'failed', reason: 'trunk_unreachable', callId };
  }
  const profile = through ? outboundProfile(through.provider) : null;
  if (profile && profile.callsPerSecond !== null && ctx.pace) {
    // The carrier caps INVITEs per second from us (carrier_a): a second leg takes its slot in the
    // same line as POST /calls. Cancelled or hung up meanwhile: warmTransfer sends nothing then.
    await ctx.pace(route.target.host, profile.callsPerSecond);
  }
  return dialLeg(ctx, record, (verdict) =>
    legRequest(ctx, { trunk, route, profile, choices, record, verdict }),
  );
}

/**
 * Whether the trunk the leg would leave through is down: its OPTIONS pings go unanswered
 * (telephony/trunks), as POST /calls checks. The leg then fails now, not after Timer B, and no
 * INVITE is sent.
 */
function trunkDown(ctx: LegContext, trunk: TrunkRecord, destination: string): boolean {
  if (trunk.health_check !== 1 || trunk.health !== 'down') return false;
  ctx.deps.logger.warn(
    { call_id: ctx.logId, sip_trunk_id: trunk.id, destination },
    'trunk is down; leg not dialled',
  );
  return true;
}

/** Answering-machine detection's verdict, once the leg answered (machineDetection only). */
interface LegVerdict {
  answeredBy?: AnsweredBy;
  /** The bridged party went silent and was hung up (MEDIA_TIMEOUT_SECONDS). */
  mediaTimeout?: boolean;
}

/** What the warm transfer machine is asked for one second leg. */
interface LegPlan {
  trunk: TrunkRecord | undefined;
  route: DialTarget;
  /** The carrier's profile when the leg leaves through the trunk, else null. */
  profile: OutboundProfile | null;
  choices: LegChoices;
  record: DialLegRecord;
  verdict: LegVerdict;
}

/** The warm transfer of one second leg: its route, the caller's side, the record kept in step. */
function legRequest(ctx: LegContext, plan: LegPlan): WarmTransferRequest {
  const { deps } = ctx;
  const { trunk, route, profile, record, verdict } = plan;
  const from = ctx.from.number;
  return {
    stack: ctx.stack,
    local: ctx.local,
    clock: deps.clock,
    newId: deps.newId,
    ports: ctx.ports,
    ...(ctx.pacer ? { pacer: ctx.pacer } : {}),
    ...(ctx.mediaTimeoutMs ? { mediaTimeoutMs: ctx.mediaTimeoutMs } : {}),
    ...(ctx.mediaHoldTimeoutMs ? { mediaHoldTimeoutMs: ctx.mediaHoldTimeoutMs } : {}),
    onMediaTimeout: () => (verdict.mediaTimeout = true),
    target: route.target,
    auth: route.auth,
    from,
    ...(ctx.resolve ? { resolve: ctx.resolve } : {}),
    ...(profile
      ? {
          carrierHeaders: profile.identityHeaders(from, deps.config.sip.domain),
        }
      : {}),
    callId: ctx.logId,
    ...plan.choices,
    onProvisional: (status) => {
      if (status >= 180) void record.ringing();
    },
    onAnswered: (by) => {
      verdict.answeredBy = by;
      void record.answer(by);
    },
    ringing: { tone: ringbackCadence(deps.config.sip.ringback) },
    codecs: deps.config.sip.codecs,
    referTarget: (uri) => warmTarget(uri, trunk, deps),
    caller: ctx.caller,
    suspendMedia: ctx.suspendMedia,
    resumeMedia: ctx.resumeMedia,
    ...(ctx.meterTts ? { meterTts: ctx.meterTts } : {}),
    ...(ctx.callerDigits ? { callerDigits: ctx.callerDigits } : {}),
    callerGone: ctx.callerGone,
    logger: deps.logger,
  };
}

/**
 * Runs the leg's warm transfer and ends its record: with the failure, with the abort, or (bridged)
 * when the bridge is over.
 */
async function dialLeg(
  ctx: LegContext,
  record: DialLegRecord,
  request: (verdict: LegVerdict) => WarmTransferRequest,
): Promise<TransferResult> {
  const callId = record.id;
  const verdict: LegVerdict = {};
  let result: TransferResult;
  try {
    result = await warmTransfer(request(verdict));
  } catch (err) {
    // The node's run was aborted: the leg was cancelled (or hung up, once answered).
    await record.end(
      record.answered ? { status: 'completed', reason: 'workflow_hangup' } : legEnding('aborted', false),
    );
    throw err;
  }
  const answered = verdict.answeredBy !== undefined ? { answeredBy: verdict.answeredBy } : {};
  if (result.status !== 'success') {
    await record.end(legEnding(result.reason, record.answered));
    return { ...result, callId, ...answered };
  }
  // Success is only reported once answered; the record may not have seen it if the 2xx and the
  // bridge came together.
  void record.answer();
  const ended = () =>
    record.end(
      verdict.mediaTimeout
        ? { status: 'completed', reason: 'media_timeout' }
        : legEnding(ctx.callerGone.aborted ? 'caller_hangup' : undefined, true),
    );
  return {
    ...result,
    callId,
    ...answered,
    ...(result.bridged ? { bridged: result.bridged.then(ended, ended) } : {}),
  };
}
