// RFC 3263 on a real call: the trunk terminates at a host name with no port
// (`sip:carrier.example`, transport udp), and the node's own resolver (SipResolver, as `serve`
// builds it) is given a DNS client that answers from a table instead of the network: SRV
// `_sip._udp.carrier.example` lists a lower-priority target first in its answer (a port nobody
// listens on) and the higher-priority one at sipp. sipp calls in, the workflow's dial node dials
// through the trunk, and the INVITE must reach the callee sipp (priority 10 before 20; the other
// would wait out Timer B and the callee sipp would time out). Everything but DNS is real. The
// second test asks a real DNS server over the wire instead (dnsmasq with the same records).
import { Resolver } from 'node:dns/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DnsClient, SrvAnswer } from '../../src/telephony/sip/transport/resolve.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually, storedEvents } from './testing/call-reads.js';
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
