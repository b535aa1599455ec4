// RFC 3263 on a real call: the trunk terminates at a host name with no port
// (`sip:carrier.example`, transport udp), and the node's own resolver (SipResolver, as `serve`
// builds it) is given a DNS client that answers from a table instead of the network: SRV
// `_sip._udp.carrier.example` lists a lower-priority target first in its answer (a port nobody
// listens on) and the higher-priority one at sipp. sipp calls in, the workflow's dial node dials
// through the trunk, and the INVITE must reach the callee sipp (priority 10 before 20; the other
// would wait out Timer B and the callee sipp would time out). Everything but DNS is real. The
// second test asks a real DNS server over the wire instead (dnsmasq with the same records). The
// last two place a POST /calls through a trunk at `sip:carrier.test` with the node pointed at
// dnsmasq the way an operator points it (SIP_DNS_SERVERS, no injected client): answered by the
// sipp at the priority-10 target, and, with that target down, by the priority-20 one after
// Timer B (RFC 3263 4.3; over UDP nothing reports the dead port, so short SIP timers), or, with
// the normal timers, after the failover bound (SIP_FAILOVER_SECONDS=1 here) when the priority-10
// target drops everything.
import dgram from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsClient, SrvAnswer } from '../../src/telephony/sip/transport/resolve.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';
import { haveDnsmasq, startDnsmasq, type DnsServer } from './testing/dnsmasq.js';
import {
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
  sippUasArgs,
  type Peer,
} from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const dnsTest = (haveSipp() && haveDnsmasq()) || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
const peers: Peer[] = [];
const dnsServers: DnsServer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const d of dnsServers.splice(0)) d.stop();
  for (const n of nodes.splice(0)) await n.close();
});

/** DNS from a table: SRV and A records by name, no NAPTR, no AAAA; every question asked is kept. */
function tableDns(srv: Record<string, SrvAnswer[]>, a: Record<string, string[]>) {
  const asked: string[] = [];
  const none = (name: string) => Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  const dns: DnsClient = {
    resolveNaptr: async (name) => {
      asked.push(`NAPTR ${name}`);
      throw none(name);
    },
    resolveSrv: async (name) => {
      asked.push(`SRV ${name}`);
      if (!srv[name]) throw none(name);
      return srv[name];
    },
    resolve4: async (name) => {
      asked.push(`A ${name}`);
      if (!a[name]) throw none(name);
      return a[name];
    },
    resolve6: async (name) => {
      asked.push(`AAAA ${name}`);
      throw none(name);
    },
  };
  return { dns, asked };
}

/**
 * sipp calls in; the workflow dials through the trunk at `sip:<domain>` (no port); the callee sipp
 * on `calleePort` answers 486. Resolves once the workflow went on past the dial node.
 */
async function dialThroughNamedTrunk(dns: DnsClient, domain: string, calleePort: number): Promise<void> {
  const n = await startCallNode({ dns });
  nodes.push(n);
  const callee = sipp(
    sippUasArgs(scenarioFile('outbound-ring-busy.xml', { RING_MS: 200 }), calleePort, await freeUdpPort()),
  );
  peers.push(callee);
  await telephonyWorld(n, {
    number: '+14155550300',
    termination: `sip:${domain}`,
    graphs: {
      dial: {
        nodes: [
          { id: 'start', type: 'start', config: {} },
          { id: 'dial', type: 'dial', config: { to: '+15551230000', ring_timeout_seconds: 20 } },
          { id: 'bye', type: 'hangup', config: {} },
        ],
        edges: [
          { source: 'start', target: 'dial' },
          ...['answered', 'no_answer', 'busy', 'failed'].map((h) => ({
            source: 'dial',
            source_handle: h,
            target: 'bye',
          })),
        ],
      },
    },
  });
  const caller = sipp(
    sippArgs(
      `127.0.0.1:${n.sipPort}`,
      scenarioFile('inbound-answered.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550300',
        CALLER: '+4930555004',
      }),
      await freeUdpPort(),
    ),
  );
  peers.push(caller);
  const [c, d] = await Promise.all([caller.done, callee.done]);
  expect(d.code, d.out.slice(-3000)).toBe(0);
  expect(c.code, c.out.slice(-3000)).toBe(0);
  const done = await eventually(async () =>
    (await storedEvents(n)).find((e) => e.type === 'workflow.completed'),
  );
  // The workflow went on after the dial (the callee saw our ACK to its 486, so the INVITE reached it).
  expect(done.data.path).toEqual(['start', 'dial', 'bye']);
}

describe('e2e: a dial leg to a trunk found by DNS SRV', () => {
  peerTest('SRV by priority: the INVITE goes to the priority-10 target (sipp), not the 20', async () => {
    const calleePort = await freeUdpPort();
    const deadPort = await freeUdpPort();
    const { dns, asked } = tableDns(
      {
        '_sip._udp.carrier.example': [
          { name: 'backup.carrier.example', port: deadPort, priority: 20, weight: 100 },
          { name: 'sbc1.carrier.example', port: calleePort, priority: 10, weight: 0 },
        ],
      },
      { 'sbc1.carrier.example': ['127.0.0.1'], 'backup.carrier.example': ['127.0.0.1'] },
    );
    await dialThroughNamedTrunk(dns, 'carrier.example', calleePort);
    // The given transport (udp) asks only its SRV name (RFC 3263 4.1), then the target's address.
    expect(asked).toContain('SRV _sip._udp.carrier.example');
    expect(asked).toContain('A sbc1.carrier.example');
  });

  dnsTest('over the wire: a real DNS server (dnsmasq) answers the SRV and A questions', async () => {
    const calleePort = await freeUdpPort();
    const deadPort = await freeUdpPort();
    const server = await startDnsmasq([
      `--srv-host=_sip._udp.carrier.test,backup.carrier.test,${deadPort},20,100`,
      `--srv-host=_sip._udp.carrier.test,sbc1.carrier.test,${calleePort},10,0`,
      '--host-record=sbc1.carrier.test,127.0.0.1',
      '--host-record=backup.carrier.test,127.0.0.1',
    ]);
    dnsServers.push(server);
    const resolver = new Resolver({ timeout: 2000, tries: 2 });
    resolver.setServers([`127.0.0.1:${server.port}`]);
    await dialThroughNamedTrunk(resolver, 'carrier.test', calleePort);
    // dnsmasq logs every question it was asked: the SRV name, then the chosen target's address.
    expect(server.log()).toMatch(/query\[SRV\] _sip\._udp\.carrier\.test/);
    expect(server.log()).toMatch(/query\[A\] sbc1\.carrier\.test/);
    // (backup's address is asked too: the resolver builds the whole fail-over list, RFC 3263 4.3.)
  });
});

const FROM = '+14155550310';
// Speaks, then waits for a key long enough for the callee sipp to hang up first.
const TALK = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: { prompt: 'Press any key.', num_digits: 1, timeout_seconds: 60, save_to_variable: 'key' },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ],
};

/**
 * dnsmasq serving `carrier.test`: a NAPTR record (only for TCP, which a udp trunk must not follow),
 * SRV `_sip._udp` with `first` at priority 10 and `second` at 20, both targets on 127.0.0.1.
 */
async function carrierZone(first: number, second: number): Promise<DnsServer> {
  const server = await startDnsmasq([
    '--naptr-record=carrier.test,10,10,S,SIP+D2T,,_sip._tcp.carrier.test',
    `--srv-host=_sip._tcp.carrier.test,tcp.carrier.test,${second},10,50`,
    `--srv-host=_sip._udp.carrier.test,sbc1.carrier.test,${first},10,50`,
    `--srv-host=_sip._udp.carrier.test,sbc2.carrier.test,${second},20,50`,
    '--host-record=sbc1.carrier.test,127.0.0.1',
    '--host-record=sbc2.carrier.test,127.0.0.1',
    '--host-record=tcp.carrier.test,127.0.0.1',
  ]);
  dnsServers.push(server);
  return server;
}

/** POST /calls from a number whose trunk terminates at `sip:carrier.test`, the sipp UAS on `sippPort`; the call once ended. */
async function postCallByName(
  server: DnsServer,
  sippPort: number,
  timers?: { T1: number },
  config: Record<string, string> = {},
) {
  const n = await startCallNode({
    config: { SIP_DNS_SERVERS: `127.0.0.1:${server.port}`, ...config },
    ...(timers ? { timers } : {}),
  });
  nodes.push(n);
  const callee = sipp(sippUasArgs(scenarioFile('outbound-answer.xml'), sippPort, await freeUdpPort()));
  peers.push(callee);
  const world = await telephonyWorld(n, {
    number: FROM,
    termination: 'sip:carrier.test',
    graphs: { talk: TALK },
  });
  const res = await n.api('POST', '/calls', {
    project_id: world.projectId,
    workflow_id: world.workflows.talk,
    from: FROM,
    to: '+15551230000',
  });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  const id = res.data.data.id as string;
  const done = await callee.done;
  expect(done.code, done.out.slice(-3000)).toBe(0);
  return eventually(async () => {
    const row = await callById(n, id);
    return row && !['queued', 'ringing', 'in_progress'].includes(row.status) ? row : undefined;
  });
}

describe('e2e: POST /calls to a trunk found through a real DNS server (SIP_DNS_SERVERS)', () => {
  dnsTest(
    'SRV priority 10 answers: sipp there takes the call, which completes',
    async () => {
      const sippPort = await freeUdpPort();
      const server = await carrierZone(sippPort, await freeUdpPort());
      const call = await postCallByName(server, sippPort);
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup', from_number: FROM });
      expect(server.log()).toMatch(/query\[SRV\] _sip\._udp\.carrier\.test/);
      expect(server.log()).toMatch(/query\[A\] sbc1\.carrier\.test/);
      // The trunk names its transport (udp), so NAPTR is not asked (RFC 3263 4.1): its TCP record is ignored.
      expect(server.log()).not.toMatch(/query\[NAPTR\]/);
      expect(server.log()).not.toMatch(/_sip\._tcp/);
    },
    120_000,
  );

  dnsTest(
    'SRV priority 10 down (nothing listens): after Timer B the INVITE goes to priority 20',
    async () => {
      const sippPort = await freeUdpPort();
      const server = await carrierZone(await freeUdpPort(), sippPort);
      // T1 50 ms: Timer B (64*T1) ends the dead attempt in 3.2 s instead of 32 s.
      const call = await postCallByName(server, sippPort, { T1: 50 });
      expect(call).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup' });
      expect(server.log()).toMatch(/query\[A\] sbc2\.carrier\.test/);
    },
    120_000,
  );

  dnsTest(
    'SRV priority 10 drops everything: after SIP_FAILOVER_SECONDS, not Timer B, the INVITE goes to priority 20',
    async () => {
      const sippPort = await freeUdpPort();
      // A target that takes every datagram and answers none (a dead SBC behind a firewall that drops).
      const blackhole = dgram.createSocket('udp4');
      const got: string[] = [];
      blackhole.on('message', (msg) => got.push(msg.toString('latin1')));
      await new Promise<void>((r) => blackhole.bind(0, '127.0.0.1', () => r()));
      try {
        const server = await carrierZone(blackhole.address().port, sippPort);
        // The default T1 (Timer B 32 s): only the failover bound can move the INVITE on in time.
        const call = await postCallByName(server, sippPort, undefined, { SIP_FAILOVER_SECONDS: '1' });
        expect(call).toMatchObject({ status: 'completed', hangup_reason: 'callee_hangup' });
        expect(server.log()).toMatch(/query\[A\] sbc2\.carrier\.test/);
        // The INVITE and its one retransmission (T1 = 0.5 s) before the 1 s bound, then nothing:
        // the abandoned branch stops quietly (no more retransmissions, no CANCEL), though the call
        // (sipp talks 2 s) lasted past the 1.5 s retransmission Timer B's schedule would have sent.
        // Without the bound the call would reach priority 20 only after Timer B, with 7 copies here.
        expect(got.map((m) => m.split('\r\n')[0])).toEqual([
          expect.stringMatching(/^INVITE sip:\+15551230000@carrier\.test SIP\/2\.0$/),
          expect.stringMatching(/^INVITE /),
        ]);
        const branch = (m: string) => /branch=([^;\r\n]+)/.exec(m)?.[1];
        expect(branch(got[1])).toBe(branch(got[0]));
      } finally {
        blackhole.close();
      }
    },
    120_000,
  );
});
