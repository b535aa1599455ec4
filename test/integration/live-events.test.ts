// Two service instances ("nodes") on one store, each with its own live-event bus: an action taken
// through node A's API reaches the live object that runs on node B. Over the in-process hub always,
// and over the real Redis when TEST_REDIS_URL is set (each suite on a channel of its own).
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { MemoryRateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { followLiveEvents } from '../../src/events/live-follow.js';
import { CallsService } from '../../src/modules/calls/calls.service.js';
import type { SessionHost } from '../../src/modules/sessions/session-host.js';
import { endSession } from '../../src/modules/sessions/session-lifecycle.js';
import { silentLogger } from '../../src/shared/logger.js';
import { inTransaction } from '../../src/store/database.js';
import { SipDialer } from '../../src/telephony/calls/outbound/sip-dialer.js';
import { createWiring } from '../../src/wiring/wiring.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { callEvents, callRow, callWorld, type CallWorld } from '../support/calls.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { ScriptedLeg } from '../support/scripted-leg.js';
import { storeKinds } from '../support/stores.js';
import type { LiveBus } from '../../src/events/live-bus.js';
import { busKinds } from '../support/live-buses.js';

/** Waits in `ask` (a dtmf node) until a digit or its timeout, which the fake clock never reaches. */
const PIN_MENU = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
);

/** Node B: another API, session host and SIP dialer on A's store, with a bus of its own. */
interface NodeB {
  app: FastifyInstance;
  host: SessionHost;
  dialer: SipDialer;
  legs: ScriptedLeg[];
  /** Resolves once the call has reached its final status on this node. */
  ended(callId: string): Promise<void>;
  close(): Promise<void>;
}

describe.each(storeKinds())('live events between two nodes on $name', (kind) => {
  describe.each(busKinds('live'))('over $name', (busKind) => {
    let a: TestApi;
    let busA: LiveBus;
    let newBus: (nodeId: string) => Promise<LiveBus>;
    let w: CallWorld;
    let pinMenu: string;
    const open: NodeB[] = [];

    beforeAll(async () => {
      newBus = busKind.network();
      busA = await newBus('node-a');
      a = await startTestApi(kind, { config: { nodeId: 'node-a' }, overrides: { liveEvents: busA } });
      followLiveEvents(busA, { sessions: a.sessionHost, logger: silentLogger() });
      w = await callWorld(a);
      pinMenu = await createPublishedWorkflow(a, await createProject(a, a.key, 'menus'), a.key, PIN_MENU);
    });
    afterEach(async () => {
      for (const b of open.splice(0)) await b.close();
    });
    afterAll(async () => {
      await busA.close();
      await a.close();
    });

    async function startNodeB(): Promise<NodeB> {
      const bus = await newBus('node-b');
      const config = { ...a.deps.config, nodeId: 'node-b' };
      const wiring = createWiring({ config, store: a.store, logger: a.deps.logger, clock: a.clock });
      const { deps, sessionHost: host } = wiring;
      const legs: ScriptedLeg[] = [];
      const waiters = new Map<string, () => void>();
      const dialer = new SipDialer(
        deps,
        () => {
          const leg = new ScriptedLeg();
          legs.push(leg);
          return leg;
        },
        { onEnded: (callId) => waiters.get(callId)?.() },
      );
      const { app } = await buildApp({
        wiring,
        rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute, a.clock),
        parts: { dialer, liveEvents: bus },
      });
      followLiveEvents(bus, { sessions: host, calls: dialer, logger: silentLogger() });
      const b: NodeB = {
        app,
        host,
        dialer,
        legs,
        ended: (callId) => new Promise<void>((resolve) => waiters.set(callId, resolve)),
        async close() {
          await app.close();
          await wiring.close(); // ends what still runs on B and waits until its endings are stored
          await bus.close();
        },
      };
      open.push(b);
      return b;
    }

    /** Mints a web session through A and joins it on B, where it waits in its dtmf node. */
    async function sessionLiveOnB(b: NodeB) {
      const res = await a.call('POST', '/api/v1/sessions', {
        body: { project_id: await projectOf(pinMenu), workflow_id: pinMenu },
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = (res.data as { data: { id: string } }).data.id;
      const live = await b.host.join(a.workspaceId, id);
      const waiting = new Promise<void>((resolve) =>
        live.subscribe((e) => {
          if (e.type === 'node.entered' && e.node_id === 'ask') resolve();
        }),
      );
      live.start();
      await waiting;
      return { id, live };
    }

    async function projectOf(workflowId: string): Promise<string> {
      const row = await a.store.db
        .selectFrom('workflows')
        .select('project_id')
        .where('id', '=', workflowId)
        .executeTakeFirstOrThrow();
      return row.project_id;
    }

    it('DELETE /sessions/{id} on A ends the session running on B with force_ended', async () => {
      const b = await startNodeB();
      const target = await sessionLiveOnB(b);
      const bystander = await sessionLiveOnB(b);
      expect(a.sessionHost.registry.get(target.id)).toBeUndefined();

      const res = await a.call('DELETE', `/api/v1/sessions/${target.id}`);
      expect(res.statusCode).toBe(204);
      // Without the bus this never resolves: B would keep waiting for a digit.
      const summary = await target.live.done;
      expect(summary).toMatchObject({ endReason: 'force_ended', execution: { status: 'cancelled' } });
      expect(b.host.registry.get(target.id)).toBeUndefined();
      // Only the named session ended.
      expect(bystander.live.status).toBe('active');
      expect(b.host.registry.get(bystander.id)).toBe(bystander.live);

      await b.close(); // B stores its own ending too (and the bystander's): after A's, it adds nothing
      const row = await a.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', target.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'ended', end_reason: 'force_ended' });
      const ended = (await a.store.db.selectFrom('webhook_events').select(['type', 'body']).execute())
        .filter((e) => e.type === 'session.ended')
        .map((e) => JSON.parse(e.body).data)
        .filter((d) => d.id === target.id);
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatchObject({ end_reason: 'force_ended' });
    });

    it('a repeated DELETE reaches a session whose first message it missed', async () => {
      const b = await startNodeB();
      const s = await sessionLiveOnB(b);
      // The record ends as a first DELETE ends it, but B never hears of it (as if its subscriber
      // had been reconnecting: pub/sub keeps nothing for it).
      await inTransaction(a.store.db, async (trx) => {
        const row = await trx
          .selectFrom('sessions')
          .selectAll()
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow();
        await endSession(trx, a.deps, row, 'force_ended');
      });
      expect(s.live.status).toBe('active');
      expect((await a.call('DELETE', `/api/v1/sessions/${s.id}`)).statusCode).toBe(204);
      expect((await s.live.done).endReason).toBe('force_ended');
    });

    /** POST /calls through B, whose dialer rings the callee (180) and waits for an answer. */
    async function callRingingOnB(b: NodeB): Promise<{ id: string; leg: ScriptedLeg }> {
      const res = await b.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          project_id: w.projectId,
          workflow_id: w.workflowId,
          from: w.number,
          to: '+14155550999',
        }),
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = (JSON.parse(res.body) as { data: { id: string } }).data.id;
      const call = b.dialer.find(id)!;
      await call.idle();
      const leg = b.legs.at(-1)!;
      leg.events.provisional(180);
      await call.idle();
      expect(await callRow(a, id)).toMatchObject({ status: 'ringing', node_id: 'node-b' });
      return { id, leg };
    }

    it('DELETE /calls/{id} on an API node without SIP makes B send CANCEL for the call it rings', async () => {
      const b = await startNodeB();
      const { id, leg } = await callRingingOnB(b);
      const ended = b.ended(id);

      const res = await a.call('DELETE', `/api/v1/calls/${id}`);
      expect(res.statusCode, res.body).toBe(204);
      expect(await callRow(a, id)).toMatchObject({ status: 'cancelled', hangup_reason: 'caller_cancelled' });
      // Without the bus B would ring on until the ring timeout.
      await ended;
      expect(leg.cancels).toBe(1);
      expect(leg.byes).toBe(0);
      expect(b.dialer.find(id)).toBeUndefined();
      // B found the call ended by A: no second call.ended.
      expect((await callEvents(a, id)).map((e) => [e.type, e.data.status, e.data.hangup_reason])).toEqual([
        ['call.ended', 'cancelled', 'caller_cancelled'],
      ]);
      // The carrier's 487 to our CANCEL changes nothing, and neither does a 200 crossing it but BYE.
      leg.events.final(487, { withCredentials: true });
      expect(leg.byes).toBe(0);
    });

    it('a cancel on another SIP node, where the call is not live, also reaches B', async () => {
      const b = await startNodeB();
      const { id, leg } = await callRingingOnB(b);
      const ended = b.ended(id);
      // Node A as a SIP node: its dialer has no such call live, so it ends the record and tells B.
      const dialerA = new SipDialer(a.deps, () => new ScriptedLeg());
      const callsA = new CallsService(a.deps, dialerA, busA);
      const actor = { workspaceId: a.workspaceId, keyId: 'k', scopes: new Set<never>() };
      expect(await callsA.cancel(actor, id)).toMatchObject({
        status: 'cancelled',
        hangup_reason: 'caller_cancelled',
      });
      await ended;
      expect(leg.cancels).toBe(1);
      expect((await callEvents(a, id)).map((e) => e.type)).toEqual(['call.ended']);
    });

    it('a call cancelled on the node that rings it is not announced to the others', async () => {
      const b = await startNodeB();
      const { id, leg } = await callRingingOnB(b);
      const heard: string[] = [];
      const off = busA.subscribe((m) => void heard.push(m.kind));
      const res = await b.app.inject({
        method: 'DELETE',
        url: `/api/v1/calls/${id}`,
        headers: { authorization: `Bearer ${a.key}` },
      });
      expect(res.statusCode).toBe(204);
      expect(leg.cancels).toBe(1);
      // A later session.end from B reaches A; a call.cancel sent before it would have come first.
      const s = await sessionLiveOnB(b);
      const atA = new Promise<void>((resolve) =>
        busA.subscribe((m) => {
          if (m.kind === 'session.end') resolve();
        }),
      );
      await b.app.inject({
        method: 'DELETE',
        url: `/api/v1/sessions/${s.id}`,
        headers: { authorization: `Bearer ${a.key}` },
      });
      await atA;
      off();
      expect(heard).toEqual(['session.end']);
    });
  });
});
