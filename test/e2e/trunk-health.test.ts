// Trunk health end to end with sipp as the termination host (test/interop/trunks/options-answer.xml):
// the node's trunk manager pings a trunk with health_check on, sees it up while sipp answers
// OPTIONS and down once sipp is gone, shows both on the trunk and in the Prometheus gauge, and an
// outbound call through the down trunk fails at once with trunk_unreachable (no INVITE waits for
// Timer B); so do the second legs of a call on its number: sipp calls in, the workflow's
// transfer_to_human leaves by `failed` with transfer_failure_reason trunk_unreachable, and its dial
// node by `failed`, neither sending an INVITE (the test then holds the termination host's port and
// sees OPTIONS pings only, which it leaves unanswered). Real clock, short ping interval and timeout.
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs, sippUasArgs } from '../support/sipp.js';
import { eventually, finishedCall, storedEvents, transcript } from './testing/call-reads.js';
import { untilPasses } from '../support/poll.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

describe('e2e: trunk health with sipp answering OPTIONS, then not', () => {
  peerTest(
    'up while OPTIONS are answered, down after two unanswered, gauge and fast trunk_unreachable',
    async () => {
      const port = await freeUdpPort();
      const args = sippUasArgs(scenarioFile('options-answer.xml', {}, 'trunks'), port, await freeUdpPort());
      args[args.indexOf('-m') + 1] = '2';
      const host = sipp(args);
      const n = await startCallNode({
        trunks: { syncMs: 100, ping: { intervalMs: 300, timeoutMs: 300, downAfter: 2 } },
      });
      nodes.push(n);
      const world = await telephonyWorld(n, {
        number: '+14155550123',
        termination: `sip:127.0.0.1:${port}`,
        graphs: {
          line: {
            nodes: [
              { id: 'start', type: 'start', config: {} },
              { id: 'human', type: 'transfer_to_human', config: { destination: 'tel:+15550177' } },
              { id: 'sorry', type: 'speak', config: { text: 'No transfer ({{transfer_failure_reason}}).' } },
              { id: 'dial', type: 'dial', config: { to: '+15551230000', ring_timeout_seconds: 20 } },
              { id: 'bye', type: 'hangup', config: {} },
            ],
            edges: [
              { source: 'start', target: 'human' },
              { source: 'human', source_handle: 'failed', target: 'sorry' },
              { source: 'sorry', target: 'dial' },
              ...['answered', 'no_answer', 'busy', 'failed'].map((h) => ({
                source: 'dial',
                source_handle: h,
                target: 'bye',
              })),
            ],
          },
        },
      });
      const patched = await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { health_check: true });
      expect(patched.data.data.health).toBe('unknown');
      const health = async () => (await n.api('GET', `/sip-trunks/${world.trunkId}`)).data.data.health;
      // The node's Prometheus metrics as serve builds them (GET /metrics renders the same text).
      const metrics = createMetrics({
        db: n.store.db,
        clock: n.deps.clock,
        nodeId: n.deps.config.nodeId,
        defaultMetrics: false,
      });
      const gauge = async () => {
        const line = (await metrics.render())
          .split('\n')
          .find((l) => l.startsWith(`switchboard_sip_trunk_up{sip_trunk_id="${world.trunkId}"}`));
        return line?.split(' ').at(-1);
      };
      await untilPasses(async () => expect(await health()).toBe('up'));
      expect(await gauge()).toBe('1');
      const answered = await host.done;
      expect(answered.code, answered.out).toBe(0);
      await untilPasses(async () => expect(await health()).toBe('down'));
      expect(await gauge()).toBe('0');
      // The termination host's port now: it reads what arrives and answers nothing.
      const silent = createSocket('udp4');
      const seen: string[] = [];
      silent.on('message', (m) => seen.push(m.toString('latin1')));
      await new Promise<void>((r) => silent.bind(port, '127.0.0.1', () => r()));

      const placed = await n.api('POST', '/calls', {
        project_id: world.projectId,
        workflow_id: world.workflows.line,
        from: '+14155550123',
        to: '+14155550999',
      });
      expect(placed.status, JSON.stringify(placed.data)).toBe(201);
      await untilPasses(async () => {
        const call = (await n.api('GET', `/calls/${placed.data.data.id}`)).data.data;
        expect([call.status, call.hangup_reason]).toEqual(['failed', 'trunk_unreachable']);
      });

      // A call in on the same number: its second legs would leave through the down trunk.
      const caller = sipp(
        sippArgs(
          `127.0.0.1:${n.sipPort}`,
          scenarioFile('inbound-answered.xml', {
            DOMAIN: n.sipDomain,
            DIALLED: '+14155550123',
            CALLER: '+4930555004',
          }),
          await freeUdpPort(),
        ),
      );
      const c = await caller.done;
      expect(c.code, c.out.slice(-3000)).toBe(0);
      const inbound = await eventually(async () => {
        const row = await n.store.db
          .selectFrom('calls')
          .select('id')
          .where('direction', '=', 'inbound')
          .executeTakeFirst();
        return row && finishedCall(n, row.id);
      });
      const said = await transcript(n, inbound.session_id!);
      expect(said.map((m) => m.content)).toContain('No transfer (trunk_unreachable).');
      const done = await eventually(async () =>
        (await storedEvents(n)).find((e) => e.type === 'workflow.completed'),
      );
      expect(done.data.path).toEqual(['start', 'human', 'sorry', 'dial', 'bye']);
      // Both legs are recorded, the caller's call their parent, ended at once.
      const legs = await n.store.db
        .selectFrom('calls')
        .select(['status', 'hangup_reason'])
        .where('parent_call_id', '=', inbound.id)
        .execute();
      expect(legs).toEqual([
        { status: 'failed', hangup_reason: 'trunk_unreachable' },
        { status: 'failed', hangup_reason: 'trunk_unreachable' },
      ]);
      // The termination host saw OPTIONS pings only: neither leg sent an INVITE.
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((m) => !m.startsWith('OPTIONS '))).toEqual([]);
      silent.close();
      metrics.close();
    },
    TIMEOUT,
  );
});
