// A `dial` node on a web session (browser voice): the leg is placed through the trunk of the
// registered number `from` names, exactly as a phone call's dial leg (transfer.ts secondLeg: the
// same ringing, ringback or early media, ring timeout, outcomes, session timers, hand-on, pacing
// and trunk health), and bridged to the browser's line instead of a call's RTP session. Audio
// crosses at the pipeline rate (16 kHz): the browser's Opus is decoded and resampled by its peer
// connection, the leg's G.711 by its RTP session, so the bridge itself converts nothing.
//
// The leg's call record (modules/calls/dial-legs.ts openSessionDialLeg) has no parent call: its
// `session_id` is the web session that dialled it. A web session has no number of its own, so
// `from` is required (`from_required`) and must be registered in the session's workspace
// (`from_not_registered`). The browser leaving (or the session ending) cancels a ringing leg or
// hangs up a bridged one; so does this node's shutdown.
import type { WebDialRequest, WebDialResult, WebLegLine } from '../../../channels/web-media.js';
import { openSessionDialLeg } from '../../../modules/calls/dial-legs.js';
import type { SessionLegDialler } from '../../../modules/sessions/session-host.js';
import type { BridgeEnd } from '../../media/bridge.js';
import type { CallHostDeps } from '../live/live-call.js';
import type { CallRecords } from '../../../modules/calls/call-records.service.js';
import type { CallerSide } from './transfer-warm.js';
import { secondLeg } from './transfer.js';

/**
 * The browser's line as the caller's side of a leg. The dialled party's keys (RFC 4733 through the
 * bridge, SIP INFO) are sent to the browser with the leg's call id, once the leg has one.
 */
function lineCaller(line: WebLegLine, legId: () => string | undefined): CallerSide {
  const sendDigit = (digit: string): void => {
    const id = legId();
    if (id !== undefined) line.partyDigit(digit, id);
  };
  const end: BridgeEnd = {
    play: (pcm) => line.play(pcm),
    get queuedMs() {
      return line.queuedMs;
    },
    onAudio: (listener) => line.onAudio(listener),
    // The browser's presses reach the bridge through callerDigits (divertDigits).
    onDigit: () => () => undefined,
    sendDigit,
  };
  return {
    enqueue: (pcm) => line.play(pcm),
    sender: {
      get queuedMs() {
        return line.queuedMs;
      },
      clear: () => line.stopPlayback(),
    },
    tap: () => ({ end, untap: () => undefined }),
  };
}

/** The web sessions' dialler of one SIP node, and its shutdown. */
export interface WebLegs {
  dial: SessionLegDialler;
  /** Cancels or hangs up every leg still up (the node is stopping); resolves once each has ended. */
  close(): Promise<void>;
}

export function createWebLegs(host: CallHostDeps & { records: CallRecords }): WebLegs {
  const { deps } = host;
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();

  const dial: SessionLegDialler = async (session, req: WebDialRequest): Promise<WebDialResult> => {
    const log = { session_id: session.id, destination: req.destination, from: req.from };
    if (stopping.signal.aborted) return { status: 'failed', reason: 'sip_unavailable' };
    if (req.from === undefined || req.from === '') {
      deps.logger.warn(log, 'dial on a web session: `from` names no number');
      return { status: 'failed', reason: 'from_required' };
    }
    const number = await host.records.numberOf(session.workspace_id, req.from);
    if (!number) {
      deps.logger.warn(log, 'dial on a web session: from is not a registered number');
      return { status: 'failed', reason: 'from_not_registered' };
    }
    const trunk = await host.records.trunkOfCall({ phone_number_id: number.id });
    const line = req.line;
    let legId: string | undefined;
    const placing = secondLeg(
      {
        deps,
        stack: host.stack,
        local: host.local,
        ports: host.media.ports,
        ...(host.media.pacer ? { pacer: host.media.pacer } : {}),
        ...(host.media.mediaTimeoutMs ? { mediaTimeoutMs: host.media.mediaTimeoutMs } : {}),
        ...(host.media.mediaHoldTimeoutMs ? { mediaHoldTimeoutMs: host.media.mediaHoldTimeoutMs } : {}),
        ...(host.pace ? { pace: host.pace } : {}),
        ...(host.resolve ? { resolve: host.resolve } : {}),
        callerGone: AbortSignal.any([req.gone, stopping.signal]),
        suspendMedia: () => line.suspend(),
        resumeMedia: () => line.resume(),
        callerDigits: (listener) => line.divertDigits(listener),
        caller: lineCaller(line, () => legId),
        from: { number: number.number, phone_number_id: number.id },
        logId: session.id,
        open: async (target) => {
          const opened = await openSessionDialLeg(deps, session, deps.config.nodeId, target);
          legId = opened.record.id;
          return opened;
        },
      },
      trunk,
      req.destination,
      {
        signal: req.signal,
        ...(req.timeoutMs !== undefined ? { ringTimeoutMs: req.timeoutMs } : {}),
        ...(req.machineDetection ? { machineDetection: true } : {}),
      },
    );
    const track = (p: Promise<unknown>): void => {
      const settled = p.catch(() => undefined);
      running.add(settled);
      void settled.finally(() => running.delete(settled));
    };
    track(placing);
    const result = await placing;
    const leg = {
      ...(result.callId !== undefined ? { callId: result.callId } : {}),
      ...(result.answeredBy !== undefined ? { answeredBy: result.answeredBy } : {}),
    };
    if (result.status !== 'success') {
      const reason = result.reason ?? 'failed';
      const status = reason === 'no_answer' ? 'no_answer' : reason === 'busy' ? 'busy' : 'failed';
      deps.logger.info({ ...log, reason, call_id: result.callId }, 'dial on a web session: not answered');
      return { status, reason, ...leg };
    }
    if (result.bridged) track(result.bridged);
    return { status: 'answered', ...leg, ...(result.bridged ? { bridged: result.bridged } : {}) };
  };

  return {
    dial,
    async close() {
      stopping.abort();
      await Promise.all([...running]);
    },
  };
}
