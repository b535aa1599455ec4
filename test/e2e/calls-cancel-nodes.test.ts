// A ringing outbound call cancelled through another node's API, end to end: node B (a TelephonyNode,
// as `serve --role sip` runs it) dials sipp playing the carrier, who rings and never answers; node
// A (an API without SIP, as `--role api`) takes DELETE /calls/{id}. The live-event bus (Redis when
// TEST_REDIS_URL is set, else the in-process hub) must make B send CANCEL: sipp's scenario passes
// only if CANCEL arrives, and B's ring timeout is an hour, far beyond the test's timeout.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { MemoryRateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { LocalLiveHub, MemoryLiveBus, type LiveBus } from '../../src/events/live-bus.js';
import { RedisLiveBus } from '../../src/events/redis-live-bus.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createWiring } from '../../src/wiring/wiring.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { callById, eventually, storedEvents } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const FROM = '+14155550161';
const TO = '+15551230001';

const WAIT = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [{ source: 'start', target: 'bye' }],
};

/** Two buses that hear each other: node A's and node B's. */
async function busPair(): Promise<[LiveBus, LiveBus]> {
  const url = process.env.TEST_REDIS_URL;
  if (!url) {
    const hub = new LocalLiveHub();
    return [new MemoryLiveBus('api-a', silentLogger(), hub), new MemoryLiveBus('sip-b', silentLogger(), hub)];
  }
  const channel = `test:live:${randomBytes(4).toString('hex')}`;
  const a = new RedisLiveBus({ url, nodeId: 'api-a', logger: silentLogger(), channel });
  const b = new RedisLiveBus({ url, nodeId: 'sip-b', logger: silentLogger(), channel });
  await Promise.all([a.ready(), b.ready()]);
  return [a, b];
}

const closers: Array<() => Promise<unknown>> = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const close of closers.splice(0).reverse()) await close();
});

describe(`e2e: a call ringing on one node, cancelled through another (${process.env.TEST_REDIS_URL ? 'Redis' : 'in-process hub'})`, () => {
  peerTest(
    "DELETE /calls/{id} on the API node: the SIP node sends CANCEL, sipp's 487 is ACKed, one call.ended",
    async () => {
      const [busA, busB] = await busPair();
      closers.push(
        () => busA.close(),
        () => busB.close(),
      );
      const b: CallNode = await startCallNode({
        config: { SWITCHBOARD_NODE_ID: 'sip-b', RING_TIMEOUT_SECONDS: '3600' },
        liveBus: busB,
      });
      closers.push(() => b.close());
      // Node A: the API only (role api), on B's store, with its own bus and no SIP dialer.
      const wiringA = createWiring({
        config: { ...b.deps.config, nodeId: 'api-a' },
        store: b.store,
        logger: b.deps.logger,
      });
      closers.push(() => wiringA.close());
      const { app: a }: { app: FastifyInstance } = await buildApp({
        wiring: wiringA,
        rateLimiter: new MemoryRateLimiter(b.deps.config.rateLimitPerMinute, systemClock),
        parts: { liveEvents: busA },
      });
      closers.push(() => a.close());

      const port = await freeUdpPort();
      const peer = sipp(sippUasArgs(scenarioFile('outbound-no-answer.xml'), port, await freeUdpPort()));
      peers.push(peer);
      const world = await telephonyWorld(b, {
        number: FROM,
        termination: `sip:127.0.0.1:${port}`,
        graphs: { wait: WAIT },
      });
      const placed = await b.api('POST', '/calls', {
        project_id: world.projectId,
        workflow_id: world.workflows.wait,
        from: FROM,
        to: TO,
      });
      expect(placed.status, JSON.stringify(placed.data)).toBe(201);
      const id = placed.data.data.id as string;
      // sipp's 180 has arrived: the callee's phone rings, from node B.
      await eventually(async () => (await callById(b, id))?.status === 'ringing');
      expect(await callById(b, id)).toMatchObject({ node_id: 'sip-b' });

      const res = await a.inject({
        method: 'DELETE',
        url: `/api/v1/calls/${id}`,
        headers: { authorization: `Bearer ${b.key}` },
      });
      expect(res.statusCode, res.body).toBe(204);

      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      // B's own ending found the call ended by A: it is gone from B and recorded once.
      await eventually(async () => b.node.dialer.find(id) === undefined);
      expect(await callById(b, id)).toMatchObject({ status: 'cancelled', hangup_reason: 'caller_cancelled' });
      const ended = (await storedEvents(b)).filter((e) => e.type.startsWith('call.') && e.data.id === id);
      expect(ended.map((e) => [e.type, e.data.status])).toEqual([['call.ended', 'cancelled']]);
    },
    TIMEOUT,
  );
});
