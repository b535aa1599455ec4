// Warm transfer against a real peer: sipp plays the human behind the trunk (test/interop/transfers/
// human-*.xml). The caller is an in-process phone joined to our caller session as the call host
// has it; the transferer built for the call host dials tel:+15550177 through the trunk of the
// call's number (a real store: termination_uri, sealed password, digest answer checked by sipp),
// speaks the announcement with the local espeak-ng engine to the human only, and bridges. sipp's
// -rtp_echo sends the human leg's audio back, so the caller's tone returning to the caller proves
// both directions of the bridge through the peer. The no-answer path ends `failed` / no_answer
// with a CANCEL sipp answers 487. Under CI a missing sipp or espeak-ng fails the test.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import type { TransferContext, TransferResult } from '../../src/telephony/calls/transfer/transfer-context.js';
import type { MediaBridge } from '../../src/telephony/media/bridge.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import type { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { echoingSipp, joinedCaller, tone, transferWorld, type Cleanup } from './testing/transfer-peers.js';
import { freeUdpPort, have, until } from '../support/media-harness.js';

const peerTest = (have('sipp') && have('espeak-ng')) || process.env.CI ? it : it.skip;
const scenario = (name: string) =>
  fileURLToPath(new URL(`../interop/transfers/${name}.xml`, import.meta.url));
const TRUNK_PASSWORD = 'Tr4nsfer-secret';

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

/** sipp as the human on a port of its own, failing the race when it ends before we are done. */
async function human(name: string) {
  const sippPort = await freeUdpPort();
  const sipp = await echoingSipp(scenario(name), sippPort, '120s', cleanup);
  const early = sipp.done.then((r): never => {
    throw new Error(`sipp ended early (${r.code}): ${r.out.slice(-2000)}`);
  });
  early.catch(() => undefined);
  return { sippPort, sipp, early };
}

async function setup(name: string) {
  const peer = await human(name);
  const { t, call } = await transferWorld(
    cleanup,
    {
      termination_uri: `sip:127.0.0.1:${peer.sippPort}`,
      transport: 'udp',
      auth: { username: 'acct', password: TRUNK_PASSWORD },
    },
    'inbound',
  );
  const stack = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
  cleanup.push(() => stack.close());
  const ours = (await stack.listen()).udp!;
  const ports = new RtpPortAllocator(30000 + 2 * Math.floor(Math.random() * 4000), 39999);
  const callerSide = await joinedCaller(ports, cleanup);
  const gone = new AbortController();
  const media = { suspend: 0, resume: 0 };
  const ctx: TransferContext = {
    leg: { sendInDialog: () => Promise.reject(new Error('unused')), onRequest: () => undefined },
    restoreRequests: () => undefined,
    rtp: callerSide.rtp,
    call,
    deps: { ...t.deps, clock: systemClock },
    stack,
    local: { host: '127.0.0.1', port: ours },
    ports,
    callerGone: gone.signal,
    suspendMedia: () => media.suspend++,
    resumeMedia: () => media.resume++,
  };
  return { peer, ctx, callerSide, gone, media, newId: () => randomBytes(4).toString('hex') };
}

describe('e2e: warm transfer with sipp as the human', () => {
  peerTest('answered after a digest challenge: announcement to the human only, audio both ways', async () => {
    const s = await setup('human-answer');
    let bridge: MediaBridge | undefined;
    let humanRtp: RtpSession | undefined;
    const transferer = createTransferer({
      announcer: { tts: new EspeakTtsProvider(), voice: 'en' },
      onBridge: (b, h) => {
        bridge = b;
        humanRtp = h;
      },
    });
    const result: TransferResult = await Promise.race([
      transferer(s.ctx, 'tel:+15550177', {
        mode: 'warm',
        announcement: 'A caller is waiting for you.',
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      }),
      s.peer.early,
    ]);
    expect(result.status, result.reason).toBe('success');
    expect(s.media).toEqual({ suspend: 1, resume: 0 });
    // The announcement went to the human (and came back through sipp's echo to the human leg),
    // while the caller heard nothing loud.
    expect(humanRtp!.counters.rtpOut).toBeGreaterThan(25);
    expect(humanRtp!.counters.rtpIn).toBeGreaterThan(25);
    // (At most a frame of ringback between sipp's 180 and its 200, sent together; the
    // announcement would be a hundred frames.)
    expect(s.callerSide.loud()).toBeLessThanOrEqual(2);

    // Bridged: the caller's tone goes to the human and returns (echo) to the caller.
    s.callerSide.phone.enqueue(tone(16000));
    await Promise.race([until(() => s.callerSide.loud() > 15), s.peer.early]);
    expect(bridge!.counters.aToB).toBeGreaterThan(15);
    expect(bridge!.counters.bToA).toBeGreaterThan(15);

    // The caller hangs up: BYE to the human (sipp waits for it), the bridge is over.
    let over = false;
    void result.bridged!.then(() => (over = true));
    s.gone.abort();
    const r = await s.peer.sipp.done;
    expect(r.code, r.out.slice(-3000)).toBe(0);
    await until(() => over);
    expect(bridge!.running).toBe(false);
  });

  peerTest('no answer: CANCEL at the ring timeout, failed no_answer, the caller keeps the call', async () => {
    const s = await setup('human-no-answer');
    const result = await Promise.race([
      createTransferer()(s.ctx, 'tel:+15550177', {
        mode: 'warm',
        announcement: 'unused',
        timeoutMs: 1500,
        signal: new AbortController().signal,
      }),
      s.peer.early,
    ]);
    expect(result).toEqual({ status: 'failed', reason: 'no_answer', callId: expect.any(String) });
    expect(s.media).toEqual({ suspend: 0, resume: 0 });
    // The human's leg is a call of its own, the caller's call its parent, ended no_answer with call.ended.
    const leg = await s.ctx.deps.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', result.callId!)
      .executeTakeFirstOrThrow();
    expect(leg).toMatchObject({
      direction: 'outbound',
      parent_call_id: s.ctx.call.id,
      status: 'no_answer',
      hangup_reason: 'ring_timeout',
      to_number: '+15550177',
      workflow_id: s.ctx.call.workflow_id,
    });
    const events = await s.ctx.deps.db.selectFrom('webhook_events').select(['type', 'body']).execute();
    const legEvents = events.filter(
      (e) => (JSON.parse(e.body) as { data: { id: string } }).data.id === leg.id,
    );
    expect(legEvents.map((e) => e.type)).toEqual(['call.ended']);
    const r = await s.peer.sipp.done;
    expect(r.code, r.out.slice(-3000)).toBe(0);
  });
});
