// Blind transfer between two SipStacks on loopback: a "carrier" calls us (its UacLeg, our UasLeg as
// an inbound call has it), we REFER on our leg, and the carrier's owner answers the REFER and sends
// the NOTIFYs each test wants. Timers on FakeClocks.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import type { Respond } from '../../sip/dialog-requests.js';
import { referNotifyHeaders, sipfrag } from '../../sip/extensions/refer.js';
import { getHeader } from '../../sip/message/access.js';
import type { SipRequest } from '../../sip/message/types.js';
import { SipStack } from '../../sip/stack.js';
import { UacLeg } from '../../sip/uac-leg.js';
import { UasLeg } from '../../sip/uas-leg.js';
import { blindTransfer, type BlindTransferRequest } from './transfer-blind.js';

const stacks: SipStack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        resolve();
      }
    }, 2);
  });
}

const SDP =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n';

/** The carrier's REFER handling: what it does with the REFER, given a way to NOTIFY. */
type Carrier = (
  refer: SipRequest,
  respond: Respond,
  notify: (status: number, reason: string) => void,
) => void;

async function connected(carrier: Carrier) {
  const ourClock = new FakeClock();
  let n = 0;
  const ours: UasLeg[] = [];
  let port = 0;
  const stack = new SipStack({
    clock: ourClock,
    host: '127.0.0.1',
    port: 0,
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock: ourClock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `u${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
        },
        req,
        tx,
        { cancelled: () => undefined, bye: () => undefined, ackTimeout: () => undefined },
      );
      ours.push(leg);
      leg.answer(SDP);
      return true;
    },
  });
  stacks.push(stack);
  port = (await stack.listen()).udp!;

  const carrierStack = new SipStack({ clock: new FakeClock(), host: '127.0.0.1', port: 0 });
  stacks.push(carrierStack);
  const cport = (await carrierStack.listen()).udp!;
  const carrierLeg = new UacLeg({
    stack: carrierStack,
    localHost: '127.0.0.1',
    localPort: cport,
    newId: () => `c${++n}`,
    offer: () => SDP,
  });
  const refers: SipRequest[] = [];
  const notified: number[] = [];
  carrierLeg.onRequest((req, respond) => {
    if (req.method !== 'REFER') return false;
    refers.push(req);
    carrier(req, respond, (status, reason) => {
      void carrierLeg
        .sendInDialog('NOTIFY', {
          headers: referNotifyHeaders(req.cseq.seq, status),
          body: sipfrag(status, reason),
        })
        .then((res) => notified.push(res.status));
    });
    return true;
  });
  let answered = false;
  carrierLeg.invite(
    { uri: `sip:+15550100@127.0.0.1:${port}`, host: '127.0.0.1', port, transport: 'udp' },
    { from: '+15550199', auth: { username: 'u', password: 'p' }, callId: 'x' },
    {
      provisional: () => undefined,
      final: () => (answered = true),
      bye: () => undefined,
      transportError: () => undefined,
    },
  );
  await until(() => answered && ours[0]?.acked === true);
  let restored = 0;
  const request = (over: Partial<BlindTransferRequest> = {}): BlindTransferRequest => ({
    leg: ours[0],
    restoreRequests: () => restored++,
    clock: ourClock,
    referTo: 'sip:+15550123@carrier.example.com;user=phone',
    referredBy: 'sip:+15550100@127.0.0.1',
    signal: new AbortController().signal,
    ...over,
  });
  return { ourClock, refers, notified, request, restored: () => restored };
}

describe('blindTransfer', () => {
  it('REFER accepted, NOTIFY 100 then 200: success; each NOTIFY answered 200', async () => {
    const c = await connected((_req, respond, notify) => {
      respond(202, 'Accepted');
      notify(100, 'Trying');
      setTimeout(() => notify(200, 'OK'), 5);
    });
    const progress: string[] = [];
    const outcome = await blindTransfer(
      c.request({ onProgress: (e) => progress.push(`${e.kind} ${e.status}`) }),
    );
    expect(outcome).toEqual({ status: 'success' });
    await until(() => c.notified.length === 2);
    expect(c.notified).toEqual([200, 200]);
    expect(progress).toContain('refer 202');
    expect(progress.filter((p) => p.startsWith('notify'))).toEqual(['notify 100', 'notify 200']);
    const refer = c.refers[0]!;
    expect(getHeader(refer, 'Refer-To')).toBe('<sip:+15550123@carrier.example.com;user=phone>');
    expect(getHeader(refer, 'Referred-By')).toBe('<sip:+15550100@127.0.0.1>');
    expect(getHeader(refer, 'Contact')).toMatch(/^<sip:sb@127\.0\.0\.1:\d+>$/);
    expect(c.restored()).toBe(1);
  });

  it('NOTIFY that overtakes the 202 still counts', async () => {
    const c = await connected((_req, respond, notify) => {
      notify(200, 'OK');
      setTimeout(() => respond(202, 'Accepted'), 10);
    });
    expect(await blindTransfer(c.request())).toEqual({ status: 'success' });
  });

  it('NOTIFY 486: failed with the status as reason', async () => {
    const c = await connected((_req, respond, notify) => {
      respond(202, 'Accepted');
      notify(100, 'Trying');
      setTimeout(() => notify(486, 'Busy Here'), 5);
    });
    expect(await blindTransfer(c.request())).toEqual({ status: 'failed', reason: 'sip_486' });
    expect(c.restored()).toBe(1);
  });

  it('REFER 403: failed at once', async () => {
    const c = await connected((_req, respond) => respond(403, 'Forbidden'));
    expect(await blindTransfer(c.request())).toEqual({ status: 'failed', reason: 'refer_rejected_403' });
  });

  it('Refer-Sub: false on the 202: success without NOTIFYs (RFC 4488)', async () => {
    const c = await connected((_req, respond) => respond(202, 'Accepted', [['Refer-Sub', 'false']]));
    expect(await blindTransfer(c.request())).toEqual({ status: 'success' });
  });

  it('no NOTIFY after the 202: notify_timeout after 30 s on the clock', async () => {
    const c = await connected((_req, respond) => respond(202, 'Accepted'));
    let outcome: unknown;
    let accepted = false;
    const p = blindTransfer(c.request({ onProgress: (e) => (accepted ||= e.kind === 'refer') })).then(
      (o) => (outcome = o),
    );
    // The wait starts with the 202.
    await until(() => accepted);
    c.ourClock.advance(29_999);
    await new Promise((r) => setImmediate(r));
    expect(outcome).toBeUndefined();
    c.ourClock.advance(1);
    await p;
    expect(outcome).toEqual({ status: 'failed', reason: 'notify_timeout' });
    expect(c.restored()).toBe(1);
  });

  it('a provisional NOTIFY extends the wait for the final one to 120 s', async () => {
    const c = await connected((_req, respond, notify) => {
      respond(202, 'Accepted');
      setTimeout(() => notify(180, 'Ringing'), 10);
    });
    let outcome: unknown;
    const p = blindTransfer(c.request()).then((o) => (outcome = o));
    await until(() => c.notified.length === 1);
    c.ourClock.advance(60_000);
    await new Promise((r) => setImmediate(r));
    expect(outcome).toBeUndefined();
    c.ourClock.advance(60_000);
    await p;
    expect(outcome).toEqual({ status: 'failed', reason: 'notify_timeout' });
  });

  it('an abort rejects with the signal reason and gives the handler back', async () => {
    const c = await connected((_req, respond) => respond(202, 'Accepted'));
    const ac = new AbortController();
    const p = blindTransfer(c.request({ signal: ac.signal }));
    await until(() => c.refers.length === 1);
    ac.abort(new Error('stopped'));
    await expect(p).rejects.toThrow('stopped');
    expect(c.restored()).toBe(1);
  });

  it('the far end hanging up after the 202 is success; before it, caller_hangup', async () => {
    const c = await connected((_req, respond) => respond(202, 'Accepted'));
    const gone = new AbortController();
    let accepted = false;
    const p = blindTransfer(
      c.request({ callerGone: gone.signal, onProgress: (e) => (accepted ||= e.kind === 'refer') }),
    );
    await until(() => accepted);
    gone.abort();
    expect(await p).toEqual({ status: 'success' });

    const d = await connected(() => undefined);
    const early = new AbortController();
    const q = blindTransfer(d.request({ callerGone: early.signal }));
    await until(() => d.refers.length === 1);
    early.abort();
    expect(await q).toEqual({ status: 'failed', reason: 'caller_hangup' });
    expect(d.restored()).toBe(1);
  });
});
