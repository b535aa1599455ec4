// Durability of webhook delivery with real processes: a worker SIGKILLed in the middle of a burst
// of 1,000 events loses none of them once a new worker starts; on PostgreSQL, two workers side by
// side never send the same attempt.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/shared/secret-box.js';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';
import { emitEvent } from '../../src/events/outbox.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedEndpoint, seedWorkspace } from '../support/webhook-fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const keyHex = randomBytes(32).toString('hex');
const box = new SecretBox(Buffer.from(keyHex, 'hex'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Starts the worker script in a child process and resolves with its pid once it polls. */
interface Worker {
  child: ChildProcess;
  pid: number;
  /** Resolves with the attempts it sent, once it stopped gracefully. */
  sent: Promise<number>;
}

function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/vite-node/vite-node.mjs'),
      'test/integration/testing/webhook-worker-child.ts',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, WORKER_SECRET_KEY: keyHex, LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  let stoppedWith!: (n: number) => void;
  const sent = new Promise<number>((r) => (stoppedWith = r));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^(ready|stopped) (\d+)$/.exec(line);
      if (m?.[1] === 'ready') resolve({ child, pid: Number(m[2]), sent });
      if (m?.[1] === 'stopped') stoppedWith(Number(m[2]));
    });
    child.once('exit', (code, signal) => reject(new Error(`worker exited early (${code ?? signal})`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Polls until `check` holds; the vitest timeout is the only bound. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 25));
}

function eventIds(receiver: Receiver): string[] {
  return receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
}

async function emitBurst(store: Store, ws: { workspaceId: string; projectId: string }, n: number, per = 25) {
  const ids: string[] = [];
  for (let i = 0; i < n; i += per) {
    await store.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(n, i + per); j++) {
        const ev = await emitEvent(trx, { ...ws, type: 'call.started', data: { seq: j }, now: Date.now() });
        ids.push(ev.id);
      }
    });
  }
  return ids;
}

describe('webhook delivery survives SIGKILL (SQLite file, real child processes)', () => {
  it('delivers every one of 1,000 events after the worker is killed mid-burst and restarted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-webhooks-'));
    const sqlitePath = path.join(dir, 'db.sqlite');
    const store = await openStore({ sqlitePath });
    await migrateToLatest(store.db);
    const receiver = await startReceiver();
    try {
      const ws = await seedWorkspace(store.db);
      await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/hook`, events: ['call.started'], box });
      const env = { WORKER_SQLITE_PATH: sqlitePath, WORKER_LEASE_MS: '1500', WORKER_CONCURRENCY: '16' };
      const first = await startWorker(env);
      const burst = emitBurst(store, ws, 1000);
      await until(() => receiver.count >= 300);
      process.kill(first.pid, 'SIGKILL');
      await exited(first.child);
      const emitted = await burst;
      const killedAt = new Set(eventIds(receiver)).size;
      expect(killedAt).toBeLessThan(1000);

      const second = await startWorker(env);
      await until(async () => {
        const left = await store.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '!=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(left.n) === 0;
      });
      second.child.kill('SIGTERM');
      await exited(second.child);

      const delivered = new Set(eventIds(receiver));
      expect(delivered.size).toBe(1000);
      expect([...delivered].sort()).toEqual([...emitted].sort());
    } finally {
      await receiver.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.runIf(pgUrl)('two workers on PostgreSQL (real child processes)', () => {
  it('never send the same attempt twice', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const store = await openStore({ databaseUrl: pgUrl!, pgSchema: schema, pgPoolSize: 4 });
    await migrateToLatest(store.db);
    const receiver = await startReceiver();
    try {
      const ws = await seedWorkspace(store.db);
      await seedEndpoint(store.db, { ...ws, url: `${receiver.url}/hook`, events: ['call.started'], box });
      const emitted = await emitBurst(store, ws, 1000, 100);
      const env = { WORKER_DATABASE_URL: pgUrl!, WORKER_PG_SCHEMA: schema, WORKER_CONCURRENCY: '16' };
      const workers = await Promise.all([
        startWorker({ ...env, WORKER_ID: 'worker-a' }),
        startWorker({ ...env, WORKER_ID: 'worker-b' }),
      ]);
      await until(() => receiver.count >= 1000);
      for (const w of workers) w.child.kill('SIGTERM');
      const sentBy = await Promise.all(workers.map((w) => w.sent));
      await Promise.all(workers.map((w) => exited(w.child)));
      // Both workers took part, so the test did exercise concurrent claiming.
      expect(sentBy.every((n) => n > 0)).toBe(true);
      expect(sentBy[0]! + sentBy[1]!).toBe(1000);

      const attemptIds = receiver.received.map((r) => r.headers['x-service-delivery']);
      expect(new Set(attemptIds).size).toBe(attemptIds.length);
      const perEvent = new Map<string, number>();
      for (const id of eventIds(receiver)) perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      expect(perEvent.size).toBe(1000);
      expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
      expect([...perEvent.keys()].sort()).toEqual([...emitted].sort());
      const rows = await store.db.selectFrom('webhook_attempts').select('id').execute();
      expect(rows).toHaveLength(1000);
    } finally {
      await receiver.close();
      await store.close(); // the schema is dropped when the run ends (global-setup.ts)
    }
  }, 120_000);
});
