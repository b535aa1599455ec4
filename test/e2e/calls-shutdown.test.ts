// Shutdown with a call up: from the drain's start new INVITEs get 503 (and leave no record), the
// call in progress may go on up to the drain limit, then it is hung up with BYE and recorded
// completed / shutdown, its session ended client_disconnected. sipp is the caller both times.
import { afterEach, describe, expect, it } from 'vitest';
import { MENU, startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

describe('e2e: shutdown drain (sipp UAC)', () => {
  peerTest(
    '503 to a new INVITE while draining; the live call is hung up at the drain limit: completed / shutdown',
    async () => {
      // Long enough that sipp's second INVITE lands inside the drain on a busy machine.
      const n = await startCallNode({ drainLimitMs: 5000 });
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550180', graphs: { menu: MENU } });
      const vars = { DOMAIN: n.sipDomain, DIALLED: '+14155550180', CALLER: '+4930555002' };
      const live = sipp(
        sippArgs(`127.0.0.1:${n.sipPort}`, scenarioFile('inbound-answered.xml', vars), await freeUdpPort()),
      );
      const call = await eventually(async () => {
        const row = await n.store.db.selectFrom('calls').selectAll().executeTakeFirst();
        return row?.status === 'in_progress' ? row : undefined;
      });

      const drained = n.node.close();
      const refused = await sipp(
        sippArgs(
          `127.0.0.1:${n.sipPort}`,
          scenarioFile('inbound-refused.xml', { ...vars, EXPECT: '503' }),
          await freeUdpPort(),
        ),
      ).done;
      expect(refused.code, refused.out.slice(-3000)).toBe(0);
      expect(await drained).toMatchObject({ hungUp: true });
      // The caller got our BYE.
      const first = await live.done;
      expect(first.code, first.out.slice(-3000)).toBe(0);

      const rows = await n.store.db.selectFrom('calls').selectAll().orderBy('created_at').execute();
      // The live call, hung up at the limit, and the refused one: the number is registered, so its
      // project sees the refusal too (failed / shutdown, never connected).
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ id: call.id, status: 'completed', hangup_reason: 'shutdown' });
      expect(rows[1]).toMatchObject({ status: 'failed', hangup_reason: 'shutdown', started_at: null });
      const session = await n.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', call.session_id!)
        .executeTakeFirstOrThrow();
      expect(session).toMatchObject({ status: 'ended', end_reason: 'client_disconnected' });
    },
    120_000,
  );
});
