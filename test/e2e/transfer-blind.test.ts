// Blind transfer against a real peer: sipp plays the carrier's UAS (test/interop/transfers/
// refer-uas.xml). We call it (an answered outbound call), then the transferer built for the call
// host REFERs the caller to tel:+15550123; sipp checks Refer-To and Referred-By, answers 202 and
// sends NOTIFY 100 then NOTIFY 200 (message/sipfrag). Success leaves the call: the BYE the call
// host sends afterwards is sent here the same way. The trunk and number live in a real store, so
// the trunk lookup behind Refer-To is the service's. Under CI a missing sipp fails the test.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { G711Codec } from '../../src/audio/codecs/g711.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { UacLeg } from '../../src/telephony/sip/uac-leg.js';
import { createTransferer } from '../../src/telephony/calls/transfer/transfer.js';
import type { TransferContext } from '../../src/telephony/calls/transfer/transfer-context.js';
import { OUR_NUMBER, transferWorld, type Cleanup } from './testing/transfer-peers.js';
import { freeUdpPort, have, run, until } from '../support/media-harness.js';

const peerTest = have('sipp') || process.env.CI ? it : it.skip;
const SCENARIO = fileURLToPath(new URL('../interop/transfers/refer-uas.xml', import.meta.url));

const cleanup: Cleanup = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

describe('e2e: blind transfer with sipp as the carrier', () => {
  peerTest('REFER accepted, NOTIFY 100 then 200: success, then our BYE', async () => {
    const { t, call } = await transferWorld(
      cleanup,
      { termination_uri: 'sip:carrier.example.test' },
      'outbound',
    );
    const stack = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
    cleanup.push(() => stack.close());
    const ours = (await stack.listen()).udp!;
    const sippPort = await freeUdpPort();
    const mediaPort = await freeUdpPort();
    const sipp = run('sipp', [
      '-sf',
      SCENARIO,
      '-i',
      '127.0.0.1',
      '-p',
      String(sippPort),
      '-mp',
      String(mediaPort),
      '-t',
      'u1',
      '-m',
      '1',
      '-nostdin',
      '-timeout',
      '60s',
      '-timeout_error',
    ]);
    cleanup.push(async () => sipp.kill());
    const early = sipp.done.then((r) => {
      throw new Error(`sipp ended early (${r.code}): ${r.out.slice(-2000)}`);
    });
    early.catch(() => undefined);

    // The connected call: our UAC leg to the carrier (Timer A covers sipp not listening yet).
    let n = 0;
    const leg = new UacLeg({
      stack,
      localHost: '127.0.0.1',
      localPort: ours,
      newId: () => `${randomBytes(4).toString('hex')}${++n}`,
      offer: () =>
        'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n',
    });
    let answered = 0;
    leg.invite(
      { uri: `sip:+4930123456@127.0.0.1:${sippPort}`, host: '127.0.0.1', port: sippPort, transport: 'udp' },
      { from: OUR_NUMBER, auth: { username: 'user', password: 'secret' }, callId: call.id },
      {
        provisional: () => undefined,
        final: (status) => (answered = status),
        bye: () => undefined,
        transportError: () => (answered = -1),
      },
    );
    await Promise.race([until(() => answered !== 0), early]);
    expect(answered).toBe(200);

    const ports = new RtpPortAllocator(30000 + 2 * Math.floor(Math.random() * 5000), 39999);
    const rtp = new RtpSession({
      clock: systemClock,
      ports,
      host: '127.0.0.1',
      codec: new G711Codec('ulaw'),
    });
    let restored = 0;
    const ctx: TransferContext = {
      leg,
      restoreRequests: () => restored++,
      rtp,
      call,
      deps: { ...t.deps, clock: systemClock },
      stack,
      local: { host: '127.0.0.1', port: ours },
      ports,
      callerGone: new AbortController().signal,
      suspendMedia: () => undefined,
      resumeMedia: () => undefined,
    };
    const outcome = await Promise.race([
      createTransferer()(ctx, 'tel:+15550123', { mode: 'blind', signal: new AbortController().signal }),
      early,
    ]);
    expect(outcome).toEqual({ status: 'success' });
    expect(restored).toBe(1);
    // The call host's part after a success: BYE, which sipp waits for.
    leg.bye();
    const r = await sipp.done;
    expect(r.code, r.out.slice(-3000)).toBe(0);
  });
});
