// The server side of bench:api, run as a child process: `bare` is a plain Fastify route with a
// project-sized JSON body; `sqlite`/`postgres` is the full API with 10,000 calls stored.
// Prints one JSON line {port, key, projectId, floorPort?} when ready.
//
// With SQLite, a second plain Fastify server in the same process (`floorPort`) answers
// GET /floor/{id} with nothing but the two point reads an authenticated GET of one resource
// cannot do without: the key by its hash, then the project, on the same store connection. It is a
// reference for how much of the single GET's cost is those reads alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { hashApiKey } from '../src/modules/api-keys/key-format.js';
import { apiKeysRepo } from '../src/modules/api-keys/api-keys.repo.js';
import { projectsRepo } from '../src/modules/projects/projects.repo.js';
import { sql } from 'kysely';
import { buildApp } from '../src/api/app.js';
import { MemoryRateLimiter } from '../src/api/rate-limit/rate-limiter.js';
import { loadConfig } from '../src/config/config.js';
import { createWorkspace } from '../src/modules/workspaces/workspaces.service.js';
import { systemClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { silentLogger } from '../src/shared/logger.js';
import { migrateToLatest, openStore, toDbTime, type Db } from '../src/store/database.js';
import { createWiring } from '../src/wiring/wiring.js';

const kind = process.argv[2] as 'bare' | 'sqlite' | 'postgres';

// The parent asks for this process's CPU time (user + system, µs) with SIGUSR2, so it can report
// CPU per request, a figure that stays meaningful on a busy machine where req/s does not.
process.on('SIGUSR2', () => {
  const u = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpu: u.user + u.system })}\n`);
});

async function bare(): Promise<void> {
  const app = Fastify();
  const body = {
    data: {
      id: newId(),
      name: 'Support line',
      description: null,
      created_at: '2026-11-21T10:00:00Z',
      updated_at: '2026-11-21T10:00:00Z',
    },
  };
  app.get('/bare', async () => body);
  // For reference only: the same route answering a 25-call page of the real one's size (~11 KB),
  // to tell the cost of writing those bytes from the cost of producing them.
  const at = '2026-11-21T10:00:00Z';
  const call = (i: number) => ({
    id: newId(),
    direction: i % 2 ? 'inbound' : 'outbound',
    status: 'completed',
    from: '+14155550100',
    to: '+14155550199',
    project_id: body.data.id,
    workflow_id: null,
    workflow_version: 1,
    session_id: null,
    duration_seconds: 42,
    hangup_reason: 'callee_hangup',
    metadata: { crm: 'abc' },
    started_at: at,
    ended_at: at,
    created_at: at,
  });
  const path = 'http://127.0.0.1:8080/api/v1/calls';
  const page = {
    data: Array.from({ length: 25 }, (_, i) => call(i)),
    links: {
      first: `${path}?page=1&per_page=25`,
      last: `${path}?page=400&per_page=25`,
      prev: null,
      next: `${path}?page=2&per_page=25`,
    },
    meta: { current_page: 1, from: 1, last_page: 400, path, per_page: 25, to: 25, total: 10000 },
  };
  app.get('/bare-page', async () => page);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  process.stdout.write(`${JSON.stringify({ port, key: '', projectId: '' })}\n`);
  // Exit through close so a --cpu-prof run writes its profile.
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

async function full(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bench-'));
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  // Not `bench_<hex>`: test runs drop schemas of that form (test/support/global-setup.ts), and one
  // running beside the bench would drop this one mid-run.
  const schema = `api_bench_${process.pid}`;
  const store =
    kind === 'postgres'
      ? await openStore({ databaseUrl: url!, pgSchema: schema, pgPoolSize: 10 })
      : await openStore({ sqlitePath: path.join(dataDir, 'bench.db') });
  await migrateToLatest(store.db);
  const config = { ...loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }), rateLimitPerMinute: 1_000_000_000 };
  const wiring = createWiring({ config, store, logger: silentLogger() });
  const { deps } = wiring;
  const { workspace, apiKey } = await createWorkspace(deps, { name: 'bench' });
  const now = Date.now();
  const projectId = newId();
  await store.db
    .insertInto('projects')
    .values({
      id: projectId,
      workspace_id: workspace.id,
      name: 'bench',
      description: null,
      created_at: toDbTime(now),
      updated_at: toDbTime(now),
    })
    .execute();
  for (let batch = 0; batch < 100; batch++) {
    const rows = Array.from({ length: 100 }, (_, i) => {
      const at = toDbTime(now - (batch * 100 + i) * 1000);
      return {
        id: newId(),
        workspace_id: workspace.id,
        project_id: projectId,
        workflow_id: null,
        workflow_version: 1,
        session_id: null,
        phone_number_id: null,
        direction: i % 2 ? 'inbound' : 'outbound',
        status: 'completed',
        from_number: '+14155550100',
        to_number: '+14155550199',
        duration_seconds: 42,
        hangup_reason: 'callee_hangup',
        metadata: '{"crm":"abc"}',
        variables: '{}',
        sip_call_id: null,
        started_at: at,
        ended_at: at,
        created_at: at,
        updated_at: at,
      };
    });
    await store.db.insertInto('calls').values(rows).execute();
  }
  // A production table has planner statistics (autovacuum analyzes it); a freshly filled one not.
  if (kind === 'postgres') await sql`analyze`.execute(store.db);
  const { app } = await buildApp({
    wiring,
    rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute, systemClock),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const floor = kind === 'sqlite' ? await floorServer(store.db) : undefined;
  const floorPort = floor ? (floor.server.address() as { port: number }).port : undefined;
  process.stdout.write(`${JSON.stringify({ port, key: apiKey, projectId, floorPort })}\n`);
  process.on('SIGTERM', () => {
    void Promise.all([app.close().then(() => wiring.close()), floor?.close()]).then(async () => {
      if (kind === 'postgres')
        await store.db.schema
          .dropSchema(schema)
          .ifExists()
          .cascade()
          .execute()
          .catch(() => undefined);
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

/**
 * A plain Fastify route making the single GET's two point reads, and nothing else: the same
 * repository calls on the same store connection as the API, without the API around them.
 */
async function floorServer(db: Db) {
  const app = Fastify();
  app.get<{ Params: { id: string } }>('/floor/:id', async (req, reply) => {
    const key = await apiKeysRepo.findByHash(db, hashApiKey(String(req.headers.authorization).slice(7)));
    const project = key && (await projectsRepo.find(db, key.workspace_id, req.params.id));
    if (!project) return reply.code(404).send({ message: 'Not found.' });
    return { data: project };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

void (kind === 'bare' ? bare() : full());
