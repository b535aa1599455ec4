// Webhook delivery throughput: signed deliveries per second from the outbox through the worker
// (claim, sign, POST, record) to a local receiver, on SQLite and (when BENCH_DATABASE_URL,
// TEST_DATABASE_URL or DATABASE_URL is set) PostgreSQL, next to a plain undici POST loop to the
// same receiver in the same run. Targets: >= 1,000 deliveries/s on SQLite, >= 50 % of the loop.
//   npm run bench:webhooks            (WEBHOOK_BENCH_EVENTS=5000 WEBHOOK_BENCH_CONCURRENCY=32)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { systemClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { createLogger } from '../src/shared/logger.js';
import { SecretBox } from '../src/shared/secret-box.js';
import { migrateToLatest, openStore, toDbTime, type Store } from '../src/store/database.js';
import { AddressPolicy } from '../src/events/address-policy.js';
import { emitEvent } from '../src/events/outbox.js';
import { createOwnerNotifier } from '../src/events/owner-notifier.js';
import { createGuardedAgent } from '../src/events/ssrf-guard.js';
import { WebhookWorker } from '../src/events/webhook-worker.js';

const EVENTS = Number(process.env.WEBHOOK_BENCH_EVENTS ?? 5000);
const CONCURRENCY = Number(process.env.WEBHOOK_BENCH_CONCURRENCY ?? 32);
const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
const DATA = {
  id: newId(),
  status: 'ended',
  duration_seconds: 42,
  end_reason: 'api_request',
  metadata: { order: 'A-1' },
};

interface Receiver {
  url: string;
  count: number;
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A minimal receiver: reads the body, answers 204, counts. */
async function startReceiver(): Promise<Receiver> {
  let target = Infinity;
  let reached: () => void = () => undefined;
  const r: Receiver = {
    url: '',
    count: 0,
    waitFor(n) {
      target = n;
      return r.count >= n ? Promise.resolve() : new Promise((resolve) => (reached = resolve));
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (++r.count >= target) reached();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

async function plainLoop(receiver: Receiver, n: number): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY });
  const body = JSON.stringify({ id: newId(), type: 'session.ended', data: DATA });
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) {
        const res = await request(receiver.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          dispatcher: agent,
        });
        await res.body.dump();
      }
    }),
  );
  const rate = n / ((performance.now() - t0) / 1000);
  lastCpuPerItem = cpuMicros(cpu0) / n;
  await agent.close();
  return rate;
}

async function seed(store: Store, box: SecretBox, url: string, n: number) {
  const workspaceId = newId();
  const projectId = newId();
  const at = toDbTime(Date.now());
  await store.db
    .insertInto('workspaces')
    .values({
      id: workspaceId,
      name: 'bench',
      owner_email: null,
      sip_label: `bench-${workspaceId.slice(-12)}`,
      plan_voice_minutes: null,
      plan_sessions: null,
      plan_calls: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await store.db
    .insertInto('webhook_endpoints')
    .values({
      id: newId(),
      workspace_id: workspaceId,
      project_id: projectId,
      url,
      description: null,
      events: JSON.stringify(['session.ended']),
      status: 'active',
      secret_enc: box.seal(`whsec_${randomBytes(24).toString('base64url')}`),
      failing_since: null,
      last_success_at: null,
      paused_reason: null,
      paused_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  for (let i = 0; i < n; i += 500) {
    await store.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(n, i + 500); j++) {
        await emitEvent(trx, { workspaceId, projectId, type: 'session.ended', data: DATA, now: Date.now() });
      }
    });
  }
}

/** Seeds n pending deliveries, then times the worker from start until all are sent and recorded. */
async function workerRate(store: Store, receiver: Receiver, n: number): Promise<number> {
  const box = new SecretBox(randomBytes(32));
  await seed(store, box, receiver.url, n);
  // A fresh schema has no planner statistics; a production table has them (autovacuum analyzes a
  // table within about a minute of a burst). Without them the first claims read and sort every
  // due row.
  if (store.dialect === 'postgres') await sql`analyze webhook_deliveries`.execute(store.db);
  const logger = createLogger('warn');
  const dispatcher = createGuardedAgent({
    policy: new AddressPolicy(['127.0.0.0/8']),
    connections: CONCURRENCY,
  });
  const worker = new WebhookWorker({
    store,
    clock: systemClock,
    logger,
    dispatcher,
    secrets: box,
    notifier: createOwnerNotifier({ smtpUrl: undefined, logger }),
    concurrency: CONCURRENCY,
    pollIntervalMs: 20,
  });
  const base = receiver.count;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  worker.start();
  await receiver.waitFor(base + n);
  await worker.stop();
  const rate = n / ((performance.now() - t0) / 1000);
  lastCpuPerItem = cpuMicros(cpu0) / n;
  await dispatcher.close();
  const left = await store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '!=', 'succeeded')
    .executeTakeFirstOrThrow();
  if (Number(left.n) !== 0) throw new Error(`${left.n} deliveries not recorded as succeeded`);
  return rate;
}

const fmt = (r: number) => `${Math.round(r).toLocaleString('en-US')}/s`;
/** CPU time of this process (sender and receiver both) per item: steadier than rates on a busy host. */
let lastCpuPerItem = 0;
const cpuMicros = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return d.user + d.system;
};
const cpu = () => `${Math.round(lastCpuPerItem)} µs CPU/item`;

async function main() {
  const receiver = await startReceiver();
  await plainLoop(receiver, Math.min(1000, EVENTS)); // warm-up
  const plain = await plainLoop(receiver, EVENTS);
  console.log(
    `webhooks bench: ${EVENTS} deliveries, concurrency ${CONCURRENCY}, node ${process.version}, ` +
      `${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(`  plain undici POST loop        ${fmt(plain)}  (${cpu()})`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-webhook-bench-'));
  const sqlite = await openStore({ sqlitePath: path.join(dir, 'bench.sqlite') });
  await migrateToLatest(sqlite.db);
  const onSqlite = await workerRate(sqlite, receiver, EVENTS);
  await sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    `  signed deliveries, SQLite     ${fmt(onSqlite)}  ratio ${(onSqlite / plain).toFixed(2)}  (${cpu()}; targets >= 1,000/s, ratio >= 0.50)`,
  );

  if (PG_URL) {
    // Not `bench_<hex>`: test runs drop schemas of that form (test/support/global-setup.ts), and
    // a test run going on at the same time would drop this one mid-benchmark.
    const schema = `webhooks_bench_${randomBytes(4).toString('hex')}`;
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 10 });
    try {
      await migrateToLatest(store.db);
      const onPg = await workerRate(store, receiver, EVENTS);
      console.log(
        `  signed deliveries, PostgreSQL ${fmt(onPg)}  ratio ${(onPg / plain).toFixed(2)}  (${cpu()})`,
      );
    } finally {
      await store.close();
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    }
  } else {
    console.log('  PostgreSQL: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
  }
  await receiver.close();
}

await main();
