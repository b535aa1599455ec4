// Test-only set-up for LiveCall's tests (live-call-*.test.ts): a LiveCall with fakes for the leg,
// the RTP session, the session host and the transferer, on a FakeClock, with what it did kept for
// the test to read (endings, usage rows, in-dialog requests sent, media and channel closed).
import type { CallControl } from '../../../channels/call-media.js';
import type { Channel, TransferOptions } from '../../../channels/channel.js';
import type { ServiceDeps } from '../../../modules/context.js';
import type { SessionHost } from '../../../modules/sessions/session-host.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/logger.js';
import type {
  CallRecord as CallTable,
  SessionRecord as SessionTable,
} from '../../../modules/calls/call-records.service.js';
import type { MediaTimeoutBounds } from '../../media/media-timeout.js';
import type { RtpPortAllocator } from '../../media/port-allocator.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { InDialogHandler, InDialogSend } from '../../sip/dialog-requests.js';
import type { SipResponse } from '../../sip/message/types.js';
import type { SipStack } from '../../sip/stack.js';
import { LiveCall, type LocalEnding, type PhoneChannelLike } from '../live/live-call.js';
import { RtpCallMedia } from '../call-media/rtp-call-media.js';
import type { SecondLegDialler, Transferer } from '../transfer/transfer-context.js';

const CALL = { id: 'call-1', workspace_id: 'ws', project_id: 'p' } as CallTable;

function fakeLeg() {
  const sent: { method: string; options?: InDialogSend }[] = [];
  let handler: InDialogHandler | undefined;
  let reply: (method: string) => Promise<SipResponse> = () =>
    Promise.resolve({ status: 200, headers: [] } as unknown as SipResponse);
  return {
    sent,
    get handler() {
      return handler;
    },
    setReply(fn: (method: string) => Promise<SipResponse>) {
      reply = fn;
    },
    leg: {
      onRequest: (h: InDialogHandler | undefined) => void (handler = h),
      sendInDialog: (method: string, options?: InDialogSend) => {
        sent.push({ method, ...(options ? { options } : {}) });
        return reply(method);
      },
    },
  };
}

function fakeSession() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const ends: string[] = [];
  return {
    ends,
    finish,
    live: {
      id: 's-1',
      started: false,
      start() {
        this.started = true;
      },
      end: (reason: string) => {
        ends.push(reason);
        finish();
        return done;
      },
      done,
    },
  };
}

export function setup(
  options: {
    transferer?: Transferer;
    dialler?: SecondLegDialler;
    timer?: { seconds: number; refresher: 'uac' | 'uas' };
    dialogTimer?: { seconds: number; weRefresh: boolean };
    uas?: boolean;
    /** MediaEnv.mediaTimeoutMs (MEDIA_TIMEOUT_SECONDS); the fake RTP session keeps what it was asked. */
    mediaTimeoutMs?: number;
    /** MediaEnv.mediaHoldTimeoutMs (MEDIA_HOLD_TIMEOUT_SECONDS). */
    mediaHoldTimeoutMs?: number;
  } = {},
) {
  const clock = new FakeClock();
  const leg = fakeLeg();
  const session = fakeSession();
  let onFinished: (() => void) | undefined;
  const ends: (LocalEnding | 'remote')[] = [];
  const usage: { metric: string; quantity: number }[] = [];
  let rtpClosed = 0;
  let channelClosed = 0;
  let control: CallControl | undefined;
  const channel = {
    usage: () => ({ ttsCharacters: 42, sttSeconds: 1.2 }),
    close: () => void channelClosed++,
  } as unknown as PhoneChannelLike;
  const numbers = [{ id: 'num-2', number: '+14155550999', workspace_id: 'ws' }];
  const db = {
    selectFrom: () => {
      const where: Record<string, unknown> = {};
      const chain = {
        select: () => chain,
        selectAll: () => chain,
        where: (col: string, _op: string, value: unknown) => ((where[col] = value), chain),
        executeTakeFirst: async () =>
          numbers.find((n) => n.workspace_id === where.workspace_id && n.number === where.number),
      };
      return chain;
    },
    // recordUsage runs the usage repo's prepared insert (id, workspace, project, metric, provider,
    // quantity, occurred_at), alone or in a transaction; the fake only collects the rows.
    ...usageSink(usage),
    transaction: () => ({
      execute: async (fn: (trx: unknown) => Promise<void>) =>
        fn({ isTransaction: true, ...usageSink(usage) }),
    }),
  };
  const logger = silentLogger();
  const warnings: { fields: object; message: string }[] = [];
  logger.warn = ((fields: object, message: string) => void warnings.push({ fields, message })) as never;
  const deps = { clock, logger, db, newId: () => 'id' } as unknown as ServiceDeps;
  const sessions = {
    run: async (_row: SessionTable, _channel: Channel, o: { onFinished?: () => void }) => {
      onFinished = o.onFinished;
      void session.live.done.then(() => onFinished?.());
      return session.live;
    },
  } as unknown as SessionHost;
  const media = new RtpCallMedia(clock);
  let mediaWatch: { bounds: MediaTimeoutBounds; onTimeout: (held: boolean) => void } | undefined;
  const rtp = {
    close: async () => void rtpClosed++,
    watchMedia: (bounds: MediaTimeoutBounds, onTimeout: (held: boolean) => void) =>
      void (mediaWatch = { bounds, onTimeout }),
    counters: { rtpIn: 0, rtcpIn: 0 },
  } as unknown as RtpSession;
  const call = new LiveCall(
    {
      deps,
      sessions,
      newChannel: (parts) => {
        control = parts.control;
        return channel;
      },
      providers: { tts: 'tts_vendor_1', stt: 'stt_vendor_1' },
      ...(options.transferer ? { transferer: options.transferer } : {}),
      ...(options.dialler ? { dialler: options.dialler } : {}),
      stack: {} as SipStack,
      local: { host: '127.0.0.1', port: 5060 },
      media: {
        clock,
        ports: {} as RtpPortAllocator,
        bindHost: '127.0.0.1',
        address: '127.0.0.1',
        ...(options.mediaTimeoutMs !== undefined ? { mediaTimeoutMs: options.mediaTimeoutMs } : {}),
        ...(options.mediaHoldTimeoutMs !== undefined
          ? { mediaHoldTimeoutMs: options.mediaHoldTimeoutMs }
          : {}),
      },
    },
    {
      call: CALL,
      leg: leg.leg,
      rtp,
      media,
      end: async (by) => void ends.push(by),
      contact: '<sip:sb@127.0.0.1>',
      local: { address: '127.0.0.1', port: 20000, codecs: ['PCMU'] },
      origin: { sessionId: '1', sessionVersion: 1, address: '127.0.0.1' },
      sdp: 'v=0',
      codec: { name: 'PCMU', pt: 0 },
      ...(options.timer ? { timer: options.timer } : {}),
      ...(options.dialogTimer ? { dialogTimer: options.dialogTimer } : {}),
      uas: options.uas ?? true,
    },
  );
  const run = () =>
    call.run({
      call: CALL,
      session: {} as SessionTable,
      workflowVersion: 1,
      graph: { nodes: [], edges: [] },
      variables: {},
    });
  return {
    call,
    clock,
    leg,
    session,
    ends,
    usage,
    media,
    run,
    control: () => control!,
    counts: () => ({ rtpClosed, channelClosed }),
    /** What the call asked the RTP session to watch for (RtpSession.watchMedia), if anything. */
    mediaWatch: () => mediaWatch,
    /** What the call logged at warn level. */
    warnings,
  };
}

export const flush = () => new Promise((r) => setImmediate(r));

export const blind: TransferOptions = { mode: 'blind', signal: new AbortController().signal };

/** An executor that takes the usage insert's compiled query and keeps its metric and quantity. */
function usageSink(usage: { metric: string; quantity: number }[]) {
  return {
    getExecutor: () => ({ adapter: {} }),
    executeQuery: async (q: { parameters: readonly unknown[] }) => {
      usage.push({ metric: String(q.parameters[3]), quantity: Number(q.parameters[5]) });
      return { rows: [], numAffectedRows: 1n };
    },
  };
}
