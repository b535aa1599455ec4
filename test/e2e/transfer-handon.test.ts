// Hand-on against real peers: a warm transfer (the transferer the call host uses, a real store with
// the trunk's termination at sipp) bridges an in-process caller to sipp playing the human
// (test/interop/transfers/human-refer.xml), who after 3 s REFERs the caller to a colleague: a
// second sipp (new-party.xml) that checks our INVITE (the call's number as caller ID, session
// timers), rings and answers. The human's sipp checks our 202 and the NOTIFYs (100 Trying and 180
// Ringing, active; 200 OK, terminated) and takes our BYE. Both sipps run -rtp_echo: the caller's tone returning to the
// caller, counted both ways on the second bridge, proves the caller now talks to the colleague.
// The caller hanging up sends BYE to the colleague. Under CI a missing sipp fails the test.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import type { TransferContext, TransferResult } from '../../src/telephony/calls/transfer/transfer-context.js';
import type { MediaBridge } from '../../src/telephony/media/bridge.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import type { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { scenarioFile } from '../support/sipp.js';
import { echoingSipp, joinedCaller, tone, transferWorld, type Cleanup } from './testing/transfer-peers.js';
import { freeUdpPort, have, until } from '../support/media-harness.js';

const peerTest = have('sipp') || process.env.CI ? it : it.skip;

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

describe('e2e: hand-on by REFER (sipp as the human and as the colleague)', () => {
  peerTest(
    'the human REFERs the caller on: 202, NOTIFY 100, 180 and 200, the caller bridged to the colleague, BYE to the human',
    async () => {
      const humanPort = await freeUdpPort();
      const colleaguePort = await freeUdpPort();
      const colleague = await echoingSipp(
        scenarioFile('new-party.xml', {}, 'transfers'),
        colleaguePort,
        '60s',
        cleanup,
      );
      const human = await echoingSipp(
        scenarioFile('human-refer.xml', { NEW_PARTY_PORT: colleaguePort }, 'transfers'),
        humanPort,
        '60s',
        cleanup,
      );
      // The colleague stays until our BYE at the end; the human until ours after the hand-on.
      const ended =
        (who: string) =>
        (r: { code: number | null; out: string }): never => {
          throw new Error(`${who}'s sipp ended early (${r.code}): ${r.out.slice(-2000)}`);
        };
      const early = Promise.race([human.done, colleague.done]).then(ended('a'));
      const colleagueEarly = colleague.done.then(ended('the colleague'));
      early.catch(() => undefined);
      colleagueEarly.catch(() => undefined);

      // The store: our number's trunk terminates at the human's sipp.
      const { t, call } = await transferWorld(
        cleanup,
        { termination_uri: `sip:127.0.0.1:${humanPort}`, transport: 'udp' },
        'inbound',
      );

      // The caller's phone and our caller session, joined on loopback as the call host has them.
      const ports = new RtpPortAllocator(30000 + 2 * Math.floor(Math.random() * 4000), 39999);
      const { phone, rtp, loud } = await joinedCaller(ports, cleanup);

      const stack = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
      cleanup.push(() => stack.close());
      const gone = new AbortController();
      const ctx: TransferContext = {
        leg: { sendInDialog: () => Promise.reject(new Error('unused')), onRequest: () => undefined },
        restoreRequests: () => undefined,
        rtp,
        call,
        deps: { ...t.deps, clock: systemClock, newId: () => randomBytes(4).toString('hex') },
        stack,
        local: { host: '127.0.0.1', port: (await stack.listen()).udp! },
        ports,
        callerGone: gone.signal,
        suspendMedia: () => undefined,
        resumeMedia: () => undefined,
      };
      const bridges: { bridge: MediaBridge; leg: RtpSession }[] = [];
      const transferer = createTransferer({ onBridge: (bridge, leg) => bridges.push({ bridge, leg }) });
      const result: TransferResult = await Promise.race([
        transferer(ctx, 'tel:+15550177', {
          mode: 'warm',
          timeoutMs: 20_000,
          signal: new AbortController().signal,
        }),
        early,
      ]);
      expect(result.status, result.reason).toBe('success');
      let over = false;
      void result.bridged!.then(() => (over = true));

      // The REFER moves the bridge: the human's sipp saw 202 and both NOTIFYs and took our BYE.
      const done = await Promise.race([human.done, colleagueEarly]);
      expect(done.code, done.out.slice(-3000)).toBe(0);
      expect(bridges).toHaveLength(2);
      expect(bridges[0]!.bridge.running).toBe(false);

      // The caller's tone reaches the colleague and comes back (echo): both ways on the new bridge.
      const second = bridges[1]!;
      const before = loud();
      phone.enqueue(tone(16000));
      await Promise.race([until(() => loud() - before > 15), colleagueEarly]);
      expect(second.bridge.counters.aToB).toBeGreaterThan(15);
      expect(second.bridge.counters.bToA).toBeGreaterThan(15);
      expect(second.leg.counters.rtpOut).toBeGreaterThan(15);
      expect(second.leg.counters.rtpIn).toBeGreaterThan(15);
      expect(over).toBe(false);

      // The caller hangs up: BYE to the colleague (its sipp waits for it), the bridge is over.
      gone.abort();
      const end = await colleague.done;
      expect(end.code, end.out.slice(-3000)).toBe(0);
      await until(() => over);
      expect(second.bridge.running).toBe(false);
    },
    90_000,
  );
});
