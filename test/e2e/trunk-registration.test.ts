// Trunk registration end to end with sipp as the carrier's registrar (test/interop/trunks): the
// node's trunk manager picks up `register: true` from the store, answers the digest challenge that
// sipp verifies, refreshes before the short expiry sipp grants, takes the call sipp then sends to
// the registered Contact (dispatched to the trunk's number), is `failed` with the reason when the
// password is refused, and registers again after a restart. Real clock, short sync interval.
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs } from '../support/sipp.js';
import { TrunkManager } from '../../src/telephony/calls/trunks/trunk-manager.js';
import { untilPasses } from '../support/poll.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const PASSWORD = 'sipp-secret-1';
const SAY_BYE = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Registered line.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

async function registeredWorld(registrarPort: number, password = PASSWORD, transport = 'udp') {
  const n = await startCallNode({ trunks: { syncMs: 100, binding: { firstRetryMs: 60_000 } } });
  nodes.push(n);
  const world = await telephonyWorld(n, {
    number: '+14155550123',
    termination: `sip:127.0.0.1:${registrarPort}`,
    password,
    graphs: { line: SAY_BYE },
  });
  const patched = await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { register: true, transport });
  expect(patched.status).toBe(200);
  expect(patched.data.data.registration_status).toBe('registering');
  const trunk = async () => (await n.api('GET', `/sip-trunks/${world.trunkId}`)).data.data;
  return { n, world, trunk };
}

describe('e2e: trunk registration with sipp as the registrar', () => {
  peerTest(
    'challenge answered and verified, refreshed before expiry, then a call on the registered Contact',
    async () => {
      const port = await freeUdpPort();
      const scenario = scenarioFile('registrar-call.xml', { PASSWORD, DIALLED: '+14155550123' }, 'trunks');
      const registrar = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
      const { n, trunk } = await registeredWorld(port);
      const result = await registrar.done;
      expect(result.code, result.out).toBe(0);
      const t = await trunk();
      expect(t.registration_status).toBe('registered');
      expect(t.registration_error).toBeNull();
      // The refresh was granted an hour.
      expect(Date.parse(t.registered_until) - Date.now()).toBeGreaterThan(3_000_000);
      const calls = await n.store.db.selectFrom('calls').selectAll().execute();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ direction: 'inbound', to_number: '+14155550123' });
      await untilPasses(async () => {
        const row = await n.store.db.selectFrom('calls').select('status').executeTakeFirstOrThrow();
        expect(row.status).toBe('completed');
      });
    },
    TIMEOUT,
  );

  peerTest(
    'over TCP: registered on one connection, and the call comes in on that same connection',
    async () => {
      const port = await freeUdpPort();
      const scenario = scenarioFile('registrar-call.xml', { PASSWORD, DIALLED: '+14155550123' }, 'trunks');
      const args = sippUasArgs(scenario, port, await freeUdpPort());
      args[args.indexOf('-t') + 1] = 't1';
      const registrar = sipp(args);
      const { n, trunk } = await registeredWorld(port, PASSWORD, 'tcp');
      const result = await registrar.done;
      expect(result.code, result.out).toBe(0);
      expect((await trunk()).registration_status).toBe('registered');
      // sipp with -t t1 as a server has only the connection it accepted from our REGISTER: its
      // INVITE (and our answers and BYE) went over that one.
      const calls = await n.store.db.selectFrom('calls').select(['direction', 'to_number']).execute();
      expect(calls).toEqual([{ direction: 'inbound', to_number: '+14155550123' }]);
    },
    TIMEOUT,
  );

  peerTest(
    'a refused password leaves the trunk failed with the reason (and no loop of REGISTERs)',
    async () => {
      const port = await freeUdpPort();
      const scenario = scenarioFile('registrar-refuse.xml', { PASSWORD }, 'trunks');
      const registrar = sipp(sippUasArgs(scenario, port, await freeUdpPort()));
      const { trunk } = await registeredWorld(port, 'not-the-password');
      const result = await registrar.done;
      expect(result.code, result.out).toBe(0);
      await untilPasses(async () => {
        const t = await trunk();
        expect(t.registration_status).toBe('failed');
        expect(t.registration_error).toBe('401 Unauthorized: the registrar refused the credentials');
        expect(t.registered_until).toBeNull();
      });
    },
    TIMEOUT,
  );

  peerTest(
    'a restarted trunk manager registers again (a new binding), and each stop unregisters',
    async () => {
      const port = await freeUdpPort();
      const scenario = scenarioFile('registrar-restart.xml', { PASSWORD }, 'trunks');
      const args = sippUasArgs(scenario, port, await freeUdpPort());
      args[args.indexOf('-m') + 1] = '2';
      const registrar = sipp(args);
      const { n, trunk } = await registeredWorld(port);
      await untilPasses(async () => expect((await trunk()).registration_status).toBe('registered'));
      // The node's process restarting: its manager stops (unregisters), a new one reads the store.
      await n.node.trunks!.stop();
      const again = new TrunkManager({
        deps: n.deps,
        stack: n.node.stack,
        local: n.node.address,
        syncMs: 100,
      });
      await again.start();
      expect((await trunk()).registration_status).toBe('registering');
      await untilPasses(async () => expect((await trunk()).registration_status).toBe('registered'));
      await again.stop();
      const result = await registrar.done;
      expect(result.code, result.out).toBe(0);
      expect(result.out).toMatch(/Successful call\s*\|\s*\S+\s*\|\s*2/);
    },
    TIMEOUT,
  );
});
