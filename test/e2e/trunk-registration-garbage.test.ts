// A registrar that answers garbage, then none at all, then comes back, with sipp as the carrier's
// registrar (test/interop/trunks/registrar-garbage.xml, then registrar-back.xml on the same
// port): the trunk's registration_status goes `failed` with the last error after every bad
// attempt, the attempts come further and further apart (backoff, never a tight loop), and the
// binding is made once the registrar answers properly again. Real clock, short SIP timers (T1
// 50 ms, so an unanswered REGISTER times out after 3.2 s) and a short first retry.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode, type Loose } from '../support/call-node.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippUasArgs, type Peer } from '../support/sipp.js';
import { untilPasses } from '../support/poll.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const PASSWORD = 'sipp-secret-1';
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 4_000;
const NO_ANSWER = 'no answer from the registrar';
const SAY_BYE = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [{ source: 'start', target: 'bye' }],
};

const nodes: CallNode[] = [];
const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const n of nodes.splice(0)) await n.close();
});

interface Change {
  time: number;
  status: string;
  error: string | null;
}

/** A node whose log is kept: every change of a binding's state, as the trunk manager logs it. */
async function garbageWorld(registrarPort: number) {
  const changes: Change[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as Loose;
          if (entry.msg === 'trunk registration') {
            changes.push({ time: entry.time, status: entry.status, error: entry.error });
          }
        }
        done();
      },
    }),
  );
  const n = await startCallNode({
    logger,
    timers: { T1: 50 },
    trunks: { syncMs: 100, binding: { firstRetryMs: FIRST_RETRY_MS, maxRetryMs: MAX_RETRY_MS } },
  });
  nodes.push(n);
  const world = await telephonyWorld(n, {
    number: '+14155550125',
    termination: `sip:127.0.0.1:${registrarPort}`,
    password: PASSWORD,
    graphs: { line: SAY_BYE },
  });
  const patched = await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { register: true });
  expect(patched.status).toBe(200);
  const trunk = async () => (await n.api('GET', `/sip-trunks/${world.trunkId}`)).data.data;
  return { n, trunk, changes };
}

describe('e2e: registration to a registrar that answers garbage, then nothing, then comes back', () => {
  peerTest(
    'failed with the last error after each bad answer, retried with a growing backoff, registered once it is back',
    async () => {
      const port = await freeUdpPort();
      const garbage = sipp(
        sippUasArgs(scenarioFile('registrar-garbage.xml', {}, 'trunks'), port, await freeUdpPort()),
      );
      peers.push(garbage);
      const { n, trunk, changes } = await garbageWorld(port);

      // sipp took three attempts (garbage, 500, an empty 200) and is gone: the registrar is down.
      const g = await garbage.done;
      expect(g.code, g.out).toBe(0);
      await untilPasses(() => expect(changes.length).toBeGreaterThanOrEqual(4));
      expect(changes.slice(0, 4).map((c) => [c.status, c.error])).toEqual([
        // The unreadable answer is dropped as RFC 3261 18.1.2 says: for us it was no answer.
        ['failed', NO_ANSWER],
        ['failed', '500 Server Internal Error'],
        ['failed', 'the registrar kept no binding for our Contact'],
        ['failed', NO_ANSWER],
      ]);
      // The garbage did arrive (once per retransmission of ours) and was dropped unread.
      expect(n.node.stack.receiver.stats.discarded).toBeGreaterThanOrEqual(1);
      // While it is down the trunk says so, and keeps saying it between attempts.
      const down = await trunk();
      expect(down).toMatchObject({
        registration_status: 'failed',
        registration_error: NO_ANSWER,
        registered_until: null,
      });

      // Backoff: each attempt waited at least twice as long as the one before it (500 ms, 1 s,
      // 2 s), capped at MAX_RETRY_MS. A failure's time is its attempt's start + how long the
      // answer took, so the gap between two failures is at least the delay in between.
      const gaps = changes.slice(1, 4).map((c, i) => c.time - changes[i]!.time);
      expect(gaps[0]).toBeGreaterThanOrEqual(FIRST_RETRY_MS);
      expect(gaps[1]).toBeGreaterThanOrEqual(2 * FIRST_RETRY_MS);
      expect(gaps[2]).toBeGreaterThanOrEqual(4 * FIRST_RETRY_MS);

      // The registrar comes back on the same port: the next attempt is challenged, verified and
      // granted an hour.
      const back = sipp(
        sippUasArgs(scenarioFile('registrar-back.xml', { PASSWORD }, 'trunks'), port, await freeUdpPort()),
      );
      peers.push(back);
      const b = await back.done;
      expect(b.code, b.out).toBe(0);
      const t = await untilPasses(async () => {
        const now = await trunk();
        expect(now.registration_status).toBe('registered');
        return now;
      });
      expect(t.registration_error).toBeNull();
      expect(Date.parse(t.registered_until) - Date.now()).toBeGreaterThan(3_000_000);
      // Every state in between was a failure with its reason; the last change is the binding.
      const t0 = changes[0]!.time;
      console.log(
        `registration states: ${changes.map((c) => `+${c.time - t0} ms ${c.status}${c.error ? ` (${c.error})` : ''}`).join('; ')}`,
      );
      const last = changes.at(-1)!;
      expect(last).toMatchObject({ status: 'registered', error: null });
      expect(changes.slice(4, -1).every((c) => c.status === 'failed' && c.error === NO_ANSWER)).toBe(true);
      // Never a tight loop: while down, attempts came at most once per MAX_RETRY_MS once the
      // backoff reached it (each no-answer also waits out the transaction's 3.2 s).
      const downTimes = changes.slice(3, -1).map((c) => c.time);
      for (let i = 1; i < downTimes.length; i++) {
        expect(downTimes[i]! - downTimes[i - 1]!).toBeGreaterThanOrEqual(MAX_RETRY_MS);
      }
    },
    TIMEOUT,
  );
});
