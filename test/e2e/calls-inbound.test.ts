// Inbound calls end to end with sipp as the carrier: the service (API + TelephonyNode, the wiring
// `serve` runs) on SQLite with the real clock. Dispatch picks the workflow by caller ID and by time
// window, the call is answered with SDP, runs its workflow (espeak-ng speaking over RTP) and is
// hung up by it; an unregistered number gets 404 and a call no rule matches 480 with call.ended.
// Under CI a missing sipp fails instead of skipping.
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, storedEvents, transcript } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';
import { storeKinds } from '../support/stores.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

const sayThenHangUp = (text: string) => ({
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
});

/** A window of the current UTC hour and the next one, every day. */
function windowAroundNow(): Record<string, unknown> {
  const h = new Date().getUTCHours();
  const hh = (n: number) => `${String((n + 24) % 24).padStart(2, '0')}:00`;
  return {
    days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    start: hh(h),
    end: hh(h + 2),
    timezone: 'UTC',
  };
}

/** A window that is certainly closed now: three hours ago for one hour. */
function windowClosedNow(): Record<string, unknown> {
  const h = new Date().getUTCHours();
  const hh = (n: number) => `${String((n + 24) % 24).padStart(2, '0')}:00`;
  return {
    days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    start: hh(h - 3),
    end: hh(h - 2),
    timezone: 'UTC',
  };
}

async function inboundCallsOf(n: CallNode) {
  return n.store.db
    .selectFrom('calls')
    .selectAll()
    .where('direction', '=', 'inbound')
    .orderBy('created_at')
    .execute();
}

async function callIn(n: CallNode, file: string, vars: Record<string, string>) {
  const scenario = scenarioFile(file, { DOMAIN: n.sipDomain, ...vars });
  const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
  return peer.done;
}

describe('e2e: inbound calls through dispatch over real SIP (sipp UAC)', () => {
  peerTest(
    'two rules: the caller-ID rule wins for its callers, the time-window rule for others; both answered, run and hung up',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const world = await telephonyWorld(n, {
        number: '+14155550123',
        graphs: { vip: sayThenHangUp('Welcome, valued caller.'), hours: sayThenHangUp('We are open.') },
        rules: (w) => [
          { workflow_id: w.vip, priority: 10, caller_id: { allow: ['+4930'] }, variables: { tier: 'vip' } },
          { workflow_id: w.hours, priority: 20, time_window: windowAroundNow() },
        ],
      });

      const vip = await callIn(n, 'inbound-answered.xml', { DIALLED: '+14155550123', CALLER: '+4930123456' });
      expect(vip.code, vip.out.slice(-3000)).toBe(0);
      const other = await callIn(n, 'inbound-answered.xml', {
        DIALLED: '+14155550123',
        CALLER: '+12125550199',
      });
      expect(other.code, other.out.slice(-3000)).toBe(0);

      const calls = await eventually(async () => {
        const rows = await inboundCallsOf(n);
        return rows.length === 2 && rows.every((r) => r.status === 'completed') ? rows : undefined;
      });
      const [first, second] = calls;
      expect(first).toMatchObject({
        workflow_id: world.workflows.vip,
        workflow_version: 1,
        from_number: '+4930123456',
        to_number: '+14155550123',
        status: 'completed',
        hangup_reason: 'workflow_hangup',
      });
      expect(second).toMatchObject({
        workflow_id: world.workflows.hours,
        from_number: '+12125550199',
        status: 'completed',
        hangup_reason: 'workflow_hangup',
      });
      for (const c of calls) {
        expect(c.started_at).not.toBeNull();
        expect(c.ended_at).not.toBeNull();
      }
      // The workflow that ran is the one the rule named: its words are in the transcript.
      const vipSession = await n.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', first!.session_id!)
        .executeTakeFirstOrThrow();
      expect(vipSession).toMatchObject({
        channel: 'phone',
        status: 'ended',
        end_reason: 'completed',
        call_id: first!.id,
      });
      expect(JSON.parse(vipSession.variables)).toEqual({ tier: 'vip' });
      expect(await transcript(n, first!.session_id!)).toEqual([
        { role: 'assistant', content: 'Welcome, valued caller.' },
      ]);
      expect(await transcript(n, second!.session_id!)).toEqual([
        { role: 'assistant', content: 'We are open.' },
      ]);

      // call.started then call.ended for each, and a completed workflow.
      const events = await storedEvents(n);
      for (const c of calls) {
        const mine = events.filter((e) => e.data.id === c.id).map((e) => e.type);
        expect(mine).toEqual(['call.started', 'call.ended']);
        const ended = events.find((e) => e.type === 'call.ended' && e.data.id === c.id)!;
        expect(ended.data).toMatchObject({
          status: 'completed',
          hangup_reason: 'workflow_hangup',
          direction: 'inbound',
        });
        expect(typeof ended.data.duration_seconds).toBe('number');
      }
      const completed = events.filter((e) => e.type === 'workflow.completed');
      expect(completed.map((e) => e.data.call_id).sort()).toEqual(calls.map((c) => c.id).sort());
      // Voice minutes and TTS characters were metered at the end of each call.
      const usage = await n.store.db.selectFrom('usage_events').select(['metric', 'quantity']).execute();
      expect(usage.filter((u) => u.metric === 'tts_characters').reduce((a, u) => a + u.quantity, 0)).toBe(
        'Welcome, valued caller.'.length + 'We are open.'.length,
      );
      expect(usage.filter((u) => u.metric === 'calls')).toHaveLength(2);
    },
    TIMEOUT,
  );

  peerTest(
    'an unregistered number gets 404 and no record; a call no rule matches gets 480 and call.ended no_dispatch_rule',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, {
        number: '+14155550124',
        graphs: { closed: sayThenHangUp('never heard') },
        rules: (w) => [{ workflow_id: w.closed, time_window: windowClosedNow() }],
      });

      const unknown = await callIn(n, 'inbound-refused.xml', {
        DIALLED: '+14155550999',
        CALLER: '+12125550100',
        EXPECT: '404',
      });
      expect(unknown.code, unknown.out.slice(-3000)).toBe(0);
      expect(await inboundCallsOf(n)).toHaveLength(0);

      const unmatched = await callIn(n, 'inbound-refused.xml', {
        DIALLED: '+14155550124',
        CALLER: '+12125550100',
        EXPECT: '480',
      });
      expect(unmatched.code, unmatched.out.slice(-3000)).toBe(0);
      const [call] = await inboundCallsOf(n);
      expect(call).toMatchObject({ status: 'failed', hangup_reason: 'no_dispatch_rule', started_at: null });
      const events = (await storedEvents(n)).filter((e) => e.data.id === call!.id);
      expect(events.map((e) => e.type)).toEqual(['call.ended']);
      expect(events[0]!.data).toMatchObject({ hangup_reason: 'no_dispatch_rule', duration_seconds: 0 });
      expect(await callById(n, call!.id)).toBeDefined();
    },
    TIMEOUT,
  );

  peerTest(
    "allowed_ips reads the packet's source: a Via claiming an allowed address gets 403; an allowed source whose Via names another is answered",
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      const world = await telephonyWorld(n, {
        number: '+14155550129',
        graphs: { hello: sayThenHangUp('Allowed.') },
      });
      const allow = async (cidrs: string[]) =>
        expect((await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { allowed_ips: cidrs })).status).toBe(
          200,
        );

      // sipp sends from 127.0.0.1; its Via (no rport) claims 203.0.113.10, which the trunk allows.
      await allow(['203.0.113.0/24']);
      const spoofed = await callIn(n, 'inbound-via-claim-refused.xml', {
        DIALLED: '+14155550129',
        CALLER: '+12125550104',
        VIA_HOST: '203.0.113.10',
      });
      expect(spoofed.code, spoofed.out.slice(-3000)).toBe(0);
      // The number is registered, so its project sees the refusal.
      expect(await inboundCallsOf(n)).toMatchObject([
        { status: 'failed', hangup_reason: 'source_not_allowed' },
      ]);

      // Now 127.0.0.1 is allowed and the Via names an address outside the list (a NATed carrier).
      await allow(['127.0.0.1/32']);
      const natted = await callIn(n, 'inbound-via-claim.xml', {
        DIALLED: '+14155550129',
        CALLER: '+12125550104',
        VIA_HOST: '203.0.113.99',
      });
      expect(natted.code, natted.out.slice(-3000)).toBe(0);
      const [, call] = await eventually(async () => {
        const all = await inboundCallsOf(n);
        return all[1]?.status === 'completed' ? all : undefined;
      });
      expect(call).toMatchObject({ hangup_reason: 'workflow_hangup', from_number: '+12125550104' });
    },
    TIMEOUT,
  );

  for (const kind of storeKinds()) {
    peerTest(
      `twenty calls at ten a second, up to twenty at once (${kind.name}): every one answered, run and hung up`,
      async () => {
        const n = await startCallNode({ store: kind });
        nodes.push(n);
        await telephonyWorld(n, { number: '+14155550126', graphs: { hello: sayThenHangUp('One moment.') } });
        const scenario = scenarioFile('inbound-answered.xml', {
          DOMAIN: n.sipDomain,
          DIALLED: '+14155550126',
          CALLER: '+12125550102',
        });
        const args = sippArgs(
          `127.0.0.1:${n.sipPort}`,
          scenario,
          await freeUdpPort(),
          ['-r', '10', '-l', '20'],
          20,
        );
        const result = await sipp(args).done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        const rows = await eventually(async () => {
          const all = await inboundCallsOf(n);
          return all.length === 20 && all.every((c) => c.status === 'completed') ? all : undefined;
        });
        expect(new Set(rows.map((c) => c.hangup_reason))).toEqual(new Set(['workflow_hangup']));
        expect(new Set(rows.map((c) => c.sip_call_id)).size).toBe(20);
        // Every RTP port comes back: a call's port is released as its media closes, just after
        // its row is completed, so the last one may still be on its way.
        await eventually(async () => (n.node.ports.inUse === 0 ? true : undefined));
      },
      TIMEOUT,
    );
  }

  peerTest(
    'over TCP: answered on the connection, our BYE goes back over TCP to the Contact',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550128', graphs: { hello: sayThenHangUp('Over TCP.') } });
      const scenario = scenarioFile('inbound-answered.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550128',
        CALLER: '+12125550103',
      });
      const args = sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()).map((a) =>
        a === 'u1' ? 't1' : a,
      );
      const result = await sipp(args).done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const [call] = await eventually(async () => {
        const all = await inboundCallsOf(n);
        return all[0]?.status === 'completed' ? all : undefined;
      });
      expect(call).toMatchObject({ hangup_reason: 'workflow_hangup' });
    },
    TIMEOUT,
  );
});
