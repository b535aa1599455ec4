// LiveCall with fakes for the leg, the RTP session, the session host and the transferer, on a
// FakeClock: one ending per call whoever asks, transfers (unavailable, blind, bridged, the caller
// leaving a bridge), INFO digits, session timers, and usage metered at the end.
import { describe, expect, it } from 'vitest';
import type { CallControl } from '../../channels/call-media.js';
import type { Channel, TransferOptions } from '../../channels/channel.js';
import type { ServiceDeps } from '../../modules/context.js';
import type { SessionHost } from '../../modules/sessions/session-host.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/logger.js';
import type { CallTable, SessionTable } from '../../store/schema.js';
import type { RtpPortAllocator } from '../media/port-allocator.js';
import type { RtpSession } from '../media/rtp-session.js';
import type { InDialogHandler, InDialogSend } from '../sip/dialog-requests.js';
import { createRequest } from '../sip/message/build.js';
import type { SipResponse } from '../sip/message/types.js';
import type { SipStack } from '../sip/stack.js';
import { LiveCall, type LocalEnding, type PhoneChannelLike } from './live-call.js';
import { RtpCallMedia } from './rtp-call-media.js';
import type { Transferer } from './transfer-context.js';

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

function setup(
  options: {
    transferer?: Transferer;
    timer?: { seconds: number; refresher: 'uac' | 'uas' };
    dialogTimer?: { seconds: number; weRefresh: boolean };
    uas?: boolean;
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
        where: (col: string, _op: string, value: unknown) => ((where[col] = value), chain),
        executeTakeFirst: async () =>
          numbers.find((n) => n.workspace_id === where.workspace_id && n.number === where.number),
      };
      return chain;
    },
    // recordUsage inserts through the usage repo; the fake transaction only collects the rows.
    transaction: () => ({
      execute: async (fn: (trx: unknown) => Promise<void>) =>
        fn({
          insertInto: () => ({
            values: (row: { metric: string; quantity: number }) => ({
              execute: async () => void usage.push({ metric: row.metric, quantity: row.quantity }),
            }),
          }),
        }),
    }),
  };
  const deps = { clock, logger: silentLogger(), db, newId: () => 'id' } as unknown as ServiceDeps;
  const sessions = {
    run: async (_row: SessionTable, _channel: Channel, o: { onFinished?: () => void }) => {
      onFinished = o.onFinished;
      void session.live.done.then(() => onFinished?.());
      return session.live;
    },
  } as unknown as SessionHost;
  const media = new RtpCallMedia(clock);
  const rtp = { close: async () => void rtpClosed++ } as unknown as RtpSession;
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
      stack: {} as SipStack,
      local: { host: '127.0.0.1', port: 5060 },
      media: { clock, ports: {} as RtpPortAllocator, bindHost: '127.0.0.1', address: '127.0.0.1' },
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
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LiveCall', () => {
  it('the workflow ending hangs up once (BYE + record), then meters usage and closes the media', async () => {
    const t = setup();
    await t.run();
    expect(t.session.live.started).toBe(true);
    t.session.finish();
    await t.call.closed;
    expect(t.ends).toEqual(['workflow']);
    await t.call.hangup('workflow');
    await t.call.remoteEnded();
    expect(t.ends).toEqual(['workflow']);
    expect(t.usage).toEqual([
      { metric: 'tts_characters', quantity: 42 },
      { metric: 'stt_seconds', quantity: 2 },
    ]);
    expect(t.counts()).toEqual({ rtpClosed: 1, channelClosed: 1 });
  });

  it("the caller's BYE records `remote` and ends the running session as caller_hangup", async () => {
    const t = setup();
    await t.run();
    await t.call.remoteEnded();
    await t.call.closed;
    expect(t.ends).toEqual(['remote']);
    expect(t.session.ends).toEqual(['caller_hangup']);
  });

  it('an INFO digit reaches the media listeners and is answered 200; REFER is declined 603; other requests are left to the leg', async () => {
    const t = setup();
    const digits: string[] = [];
    t.media.onDigit((d) => digits.push(d));
    const info = createRequest({
      method: 'INFO',
      uri: 'sip:sb@127.0.0.1',
      headers: [
        ['Via', 'SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKinfo'],
        ['From', '<sip:a@x>;tag=1'],
        ['To', '<sip:b@y>;tag=2'],
        ['Call-ID', 'c'],
        ['CSeq', '2 INFO'],
        ['Content-Type', 'application/dtmf-relay'],
      ],
      body: 'Signal=7\r\nDuration=160\r\n',
    });
    const answers: number[] = [];
    expect(t.leg.handler!(info, (status) => void answers.push(status))).toBe(true);
    expect(digits).toEqual(['7']);
    expect(answers).toEqual([200]);
    const notify = { ...info, method: 'NOTIFY' };
    expect(t.leg.handler!(notify, () => undefined)).toBe(false);
    // A REFER from the phone party of the call: 603 Decline with a Warning, the call goes on.
    const refer = { ...info, method: 'REFER' };
    const declined: [number, string, unknown][] = [];
    expect(
      t.leg.handler!(refer, (status, reason, headers) => void declined.push([status, reason, headers])),
    ).toBe(true);
    expect(declined).toEqual([
      [603, 'Decline', [['Warning', '399 127.0.0.1 "this call cannot be transferred by REFER"']]],
    ]);
    expect(t.ends).toEqual([]);
  });

  const blind: TransferOptions = { mode: 'blind', signal: new AbortController().signal };

  it('without a transferer a transfer fails transfer_unavailable and the call goes on', async () => {
    const t = setup();
    await t.run();
    expect(await t.control().transfer('tel:+14155550100', blind)).toEqual({
      status: 'failed',
      reason: 'transfer_unavailable',
    });
    expect(t.ends).toEqual([]);
  });

  it('a blind transfer that succeeds ends the call as `transfer` at once; a failed one changes nothing', async () => {
    let outcome: Awaited<ReturnType<Transferer>> = { status: 'failed', reason: 'refer_rejected_403' };
    const seen: string[] = [];
    const t = setup({
      transferer: async (ctx, destination) => {
        seen.push(`${ctx.call.id} ${destination}`);
        return outcome;
      },
    });
    await t.run();
    expect(await t.control().transfer('tel:+1', blind)).toEqual({
      status: 'failed',
      reason: 'refer_rejected_403',
    });
    expect(t.ends).toEqual([]);
    outcome = { status: 'success' };
    expect(await t.control().transfer('tel:+1', blind)).toEqual({ status: 'success' });
    await flush();
    expect(t.ends).toEqual(['transfer']);
    expect(seen).toEqual(['call-1 tel:+1', 'call-1 tel:+1']);
  });

  it("the carrier's BYE before its final NOTIFY ends the call `transfer` when the REFER succeeds, `remote` when it fails", async () => {
    for (const [outcome, ending] of [
      [{ status: 'success' as const }, 'transfer'],
      [{ status: 'failed' as const, reason: 'notify_timeout' }, 'remote'],
    ] as const) {
      let finish!: (o: Awaited<ReturnType<Transferer>>) => void;
      const t = setup({ transferer: () => new Promise((resolve) => (finish = resolve)) });
      await t.run();
      const transfer = t.control().transfer('tel:+1', blind);
      await flush();
      await t.call.remoteEnded(); // the carrier hangs up while the REFER is at work
      expect(t.ends).toEqual([]);
      finish(outcome);
      await transfer;
      await flush();
      expect(t.ends).toEqual([ending]);
    }
  });

  it('a bridged transfer keeps the call until the bridge ends, even past the session and the caller leaving', async () => {
    let endBridge!: () => void;
    let gone: AbortSignal | undefined;
    const t = setup({
      transferer: async (ctx) => {
        gone = ctx.callerGone;
        ctx.suspendMedia();
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    const digits: string[] = [];
    t.media.onDigit((d) => digits.push(d));
    expect(await t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' })).toEqual({
      status: 'success',
    });
    t.session.finish(); // the execution ends `transferred`
    await flush();
    expect(t.ends).toEqual([]);
    t.media.infoDigit('1'); // the bridge owns the caller now
    expect(digits).toEqual([]);
    await t.call.remoteEnded(); // the caller hangs up: the bridge is told, the call waits for it
    expect(gone?.aborted).toBe(true);
    expect(t.ends).toEqual([]);
    endBridge();
    await t.call.closed;
    expect(t.ends).toEqual(['transfer']);
  });

  it('session timer, the caller refreshes: nothing before the interval runs out, then BYE as lost', async () => {
    const t = setup({ timer: { seconds: 90, refresher: 'uac' } });
    await t.run();
    t.clock.advance(59_000); // 90 s less a third
    expect(t.ends).toEqual([]);
    t.clock.advance(1_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });

  it('session timer, we refresh: UPDATE with Session-Expires at half the interval, again after each 2xx', async () => {
    const t = setup({ timer: { seconds: 120, refresher: 'uas' } });
    await t.run();
    t.clock.advance(60_000);
    await flush();
    expect(t.leg.sent.map((s) => s.method)).toEqual(['UPDATE']);
    // We send the UPDATE, so staying the refresher is refresher=uac (RFC 4028 7.4).
    expect(t.leg.sent[0]!.options?.headers).toEqual([
      ['Session-Expires', '120;refresher=uac'],
      ['Supported', 'timer'],
    ]);
    t.clock.advance(60_000);
    await flush();
    expect(t.leg.sent).toHaveLength(2);
    t.leg.setReply(() => Promise.resolve({ status: 481, headers: [] } as unknown as SipResponse));
    t.clock.advance(60_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });

  it('dial: the transferer dials without an announcement, `from` picks the registered number and its trunk', async () => {
    const seen: { from: string; numberId: string | null; mode: string }[] = [];
    let outcome: Awaited<ReturnType<Transferer>> = { status: 'failed', reason: 'busy' };
    const t = setup({
      transferer: async (ctx, _destination, options) => {
        seen.push({ from: ctx.call.from_number, numberId: ctx.call.phone_number_id, mode: options.mode });
        return outcome;
      },
    });
    await t.run();
    const signal = new AbortController().signal;
    expect(await t.control().dial('tel:+15551230000', { signal })).toEqual({ status: 'busy' });
    expect(await t.control().dial('tel:+15551230000', { signal, from: '+14155550999' })).toEqual({
      status: 'busy',
    });
    expect(await t.control().dial('tel:+15551230000', { signal, from: '+19999999999' })).toEqual({
      status: 'failed',
    });
    expect(seen).toEqual([
      { from: undefined, numberId: undefined, mode: 'warm' },
      { from: '+14155550999', numberId: 'num-2', mode: 'warm' },
    ]);
    let endBridge!: () => void;
    outcome = { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
    const dialled = t.control().dial('tel:+15551230000', { signal });
    await flush();
    endBridge();
    expect(await dialled).toEqual({ status: 'answered' });
    expect(t.ends).toEqual([]);
  });

  it("outbound, the callee's 2xx left refreshing to us: UPDATE at half; their later refresh as refresher hands it over", async () => {
    const t = setup({ dialogTimer: { seconds: 90, weRefresh: true }, uas: false });
    await t.run();
    expect(t.call.sessionTimer).toEqual({ seconds: 90, weRefresh: true });
    t.clock.advance(45_000);
    await flush();
    expect(t.leg.sent.map((s) => s.method)).toEqual(['UPDATE']);
    // The callee refreshes with refresher=uac: they are the UAC of that UPDATE, so they refresh
    // from now on, although we opened the dialog (the role is per transaction, RFC 4028 9).
    const update = createRequest({
      method: 'UPDATE',
      uri: 'sip:sb@127.0.0.1',
      headers: [
        ['Via', 'SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKupd'],
        ['From', '<sip:a@x>;tag=1'],
        ['To', '<sip:b@y>;tag=2'],
        ['Call-ID', 'c'],
        ['CSeq', '3 UPDATE'],
        ['Supported', 'timer'],
        ['Session-Expires', '120;refresher=uac'],
      ],
    });
    const answers: { status: number; headers?: unknown }[] = [];
    t.leg.handler!(update, (status, _reason, headers) => void answers.push({ status, headers }));
    expect(answers[0]).toMatchObject({ status: 200 });
    expect(t.call.sessionTimer).toEqual({ seconds: 120, weRefresh: false });
    t.clock.advance(87_000); // 120 s less 32 s
    await flush();
    expect(t.leg.sent).toHaveLength(1);
    expect(t.ends).toEqual([]);
    t.clock.advance(1_000);
    await flush();
    expect(t.ends).toEqual(['lost']);
  });

  it("a warm transfer's announcement is metered with the call's tts_characters", async () => {
    let endBridge!: () => void;
    const t = setup({
      transferer: async (ctx) => {
        ctx.meterTts?.('A caller for you'.length);
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    await t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' });
    t.session.finish();
    endBridge();
    await t.call.closed;
    expect(t.usage).toEqual([
      { metric: 'tts_characters', quantity: 42 + 16 },
      { metric: 'stt_seconds', quantity: 2 },
    ]);
  });

  it("the caller's SIP INFO digits go to a bridge that asked for them, and back to the workflow after", async () => {
    let endBridge!: () => void;
    const bridged: string[] = [];
    let release: (() => void) | undefined;
    const t = setup({
      transferer: async (ctx) => {
        ctx.suspendMedia();
        release = ctx.callerDigits!((d) => bridged.push(d));
        return { status: 'success', bridged: new Promise<void>((r) => (endBridge = r)) };
      },
    });
    await t.run();
    const own: string[] = [];
    t.media.onDigit((d) => own.push(d));
    const info = (digit: string, seq: number) =>
      createRequest({
        method: 'INFO',
        uri: 'sip:sb@127.0.0.1',
        headers: [
          ['Via', `SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKinfo${seq}`],
          ['From', '<sip:a@x>;tag=1'],
          ['To', '<sip:b@y>;tag=2'],
          ['Call-ID', 'c'],
          ['CSeq', `${seq} INFO`],
          ['Content-Type', 'application/dtmf-relay'],
        ],
        body: `Signal=${digit}\r\nDuration=160\r\n`,
      });
    void t.control().transfer('sip:human@example.com', { ...blind, mode: 'warm' });
    await flush();
    const answers: number[] = [];
    t.leg.handler!(info('5', 2), (status) => void answers.push(status));
    t.clock.advance(400);
    t.leg.handler!(info('#', 3), (status) => void answers.push(status));
    expect(answers).toEqual([200, 200]);
    expect(bridged).toEqual(['5', '#']);
    expect(own).toEqual([]);
    release!();
    t.media.suspended = false; // as a failed transfer's resumeMedia leaves it
    t.leg.handler!(info('7', 4), () => undefined);
    expect(own).toEqual(['7']);
    expect(bridged).toEqual(['5', '#']);
    t.session.finish();
    endBridge();
    await t.call.closed;
  });
});
