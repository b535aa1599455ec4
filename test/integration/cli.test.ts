import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/dispatch.js';
import { watchKeyEpoch } from '../../src/modules/api-keys/key-epoch.js';
import type { CliIo } from '../../src/cli/io.js';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { serverBuildFresh } from '../support/fresh-build.js';
import type { StoreKind } from '../support/stores.js';

const run = promisify(execFile);

// `serve` hands over to the service; here it only records what it was given.
const served = vi.hoisted(() => [] as { dataDir: string; role: string }[]);
// Only runService is replaced: the test API builds its dependencies with the real serviceDeps.
vi.mock('../../src/main.js', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  runService: async (config: { dataDir: string }, role: string) => {
    served.push({ dataDir: config.dataDir, role });
  },
}));
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where a CLI run and an app meet: the same SQLite file, or the same PostgreSQL schema. */
interface CliStore {
  name: 'sqlite' | 'postgres';
  env: Record<string, string>;
  /** The app's view of the same store. */
  kind: StoreKind;
  cleanup(): Promise<void>;
}

function sqliteStore(): CliStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cli-'));
  return {
    name: 'sqlite',
    env: { SWITCHBOARD_DATA_DIR: dir },
    kind: {
      name: 'sqlite',
      async open() {
        const store = await openStore({ sqlitePath: path.join(dir, 'switchboard.db') });
        await migrateToLatest(store.db);
        return store;
      },
    },
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresStore(url: string): CliStore {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sep = url.includes('?') ? '&' : '?';
  return {
    name: 'postgres',
    env: { DATABASE_URL: `${url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}` },
    kind: {
      name: 'postgres',
      async open() {
        const store = await openStore({ databaseUrl: url, pgSchema: schema, pgPoolSize: 3 });
        await migrateToLatest(store.db);
        return store;
      },
    },
    // The schema is dropped when the run ends (test/support/global-setup.ts), never mid-run.
    async cleanup() {},
  };
}

function cliStores(): (() => CliStore)[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [sqliteStore, () => postgresStore(url)] : [sqliteStore];
}

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each(cliStores().map((make) => ({ make, name: make === sqliteStore ? 'sqlite' : 'postgres' })))(
  'command line on $name',
  ({ make }) => {
    let cs: CliStore;
    let t: TestApi;
    let store: Store;

    beforeAll(async () => {
      cs = make();
      // The "server" runs on the same store the commands write to (its open() creates the schema).
      t = await startTestApi(cs.kind);
      store = t.store;
    });
    afterAll(async () => {
      await t.close();
      await cs.cleanup();
    });

    async function cli(...argv: string[]): Promise<Captured> {
      let stdout = '';
      let stderr = '';
      const io: CliIo = {
        stdout: { write: (s: string) => (stdout += s) },
        stderr: { write: (s: string) => (stderr += s) },
        env: { ...cs.env, LOG_LEVEL: 'silent' },
      };
      const code = await runCli(argv, io);
      return { code, stdout, stderr };
    }

    /** Exactly one JSON document on stdout, nothing on stderr, status 0. */
    function json(r: Captured): Record<string, unknown> {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    }

    /** A failure: status, one line on stderr, nothing on stdout. */
    function failure(r: Captured, code: number, pattern: RegExp): void {
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    }

    it('migrate applies nothing more on a migrated store', async () => {
      expect(json(await cli('migrate', '--json'))).toEqual({ applied: [] });
      const human = await cli('migrate');
      expect(human).toEqual({ code: 0, stdout: 'The store is up to date.\n', stderr: '' });
    });

    it('workspace create --json prints the id and a key that works on the running server at once', async () => {
      const out = json(
        await cli('workspace', 'create', '--name', 'Acme', '--owner-email', 'ops@acme.test', '--json'),
      );
      expect(Object.keys(out).sort()).toEqual(['api_key', 'workspace_id']);
      expect(out.workspace_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(out.api_key).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
      const row = await store.db
        .selectFrom('workspaces')
        .selectAll()
        .where('id', '=', out.workspace_id as string)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'Acme', owner_email: 'ops@acme.test' });

      const res = await t.call('POST', '/api/v1/projects', {
        key: out.api_key as string,
        body: { name: 'p' },
      });
      expect(res.statusCode).toBe(201);
      expect((await t.call('GET', '/api/v1/usage', { key: out.api_key as string })).statusCode).toBe(200);

      const human = await cli('workspace', 'create', '--name', 'Plain');
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^Workspace "Plain" created: [0-9a-f-]{36}\nAPI key .*: pk_live_\S+\n$/);
    });

    it('key create --json makes a key with exactly the given scopes', async () => {
      const ws = json(await cli('workspace', 'create', '--name', 'Keys', '--json'));
      const key = json(
        await cli(
          'key',
          'create',
          '--workspace',
          String(ws.workspace_id),
          '--name',
          'ci',
          '--scopes',
          'read, usage:read,read',
          '--json',
        ),
      );
      expect(Object.keys(key).sort()).toEqual(['id', 'key', 'prefix', 'scopes']);
      expect(key.scopes).toEqual(['read', 'usage:read']);
      expect(String(key.key).startsWith(String(key.prefix))).toBe(true);
      const secret = String(key.key);
      expect((await t.call('GET', '/api/v1/usage', { key: secret })).statusCode).toBe(200);
      expect((await t.call('GET', '/api/v1/projects', { key: secret })).statusCode).toBe(200);
      expect(
        (await t.call('POST', '/api/v1/projects', { key: secret, body: { name: 'x' } })).statusCode,
      ).toBe(403);
      const listed = await t.call('GET', '/api/v1/api-keys', { key: String(ws.api_key) });
      expect((listed.data as { data: { id: string; name: string }[] }).data).toContainEqual(
        expect.objectContaining({ id: key.id, name: 'ci', scopes: ['read', 'usage:read'] }),
      );
    });

    it('key revoke --json revokes a key; the server refuses it (SQLite at once, PostgreSQL by the store epoch)', async () => {
      const ws = json(await cli('workspace', 'create', '--name', 'Revoke', '--json'));
      const id = String(ws.workspace_id);
      const key = json(
        await cli('key', 'create', '--workspace', id, '--name', 'k', '--scopes', 'read', '--json'),
      );
      const secret = String(key.key);
      expect((await t.call('GET', '/api/v1/projects', { key: secret })).statusCode).toBe(200);
      // The test server runs no epoch watcher of its own; this is the one a running server has.
      const stop = watchKeyEpoch(t.deps);
      expect(json(await cli('key', 'revoke', '--workspace', id, '--id', String(key.id), '--json'))).toEqual({
        id: key.id,
        revoked: true,
      });
      await t.clock.advanceAsync(1_000);
      await vi.waitFor(async () =>
        expect((await t.call('GET', '/api/v1/projects', { key: secret })).statusCode).toBe(401),
      );
      stop();
      expect((await t.call('GET', '/api/v1/projects', { key: secret })).statusCode).toBe(401);
      failure(await cli('key', 'revoke', '--workspace', id, '--id', String(key.id)), 1, /no live key/);
    });

    it('key create refuses unknown scopes and unknown workspaces', async () => {
      const ws = json(await cli('workspace', 'create', '--name', 'Bad keys', '--json'));
      const id = String(ws.workspace_id);
      failure(
        await cli('key', 'create', '--workspace', id, '--name', 'k', '--scopes', 'read,admin'),
        2,
        /unknown scope\(s\) admin/,
      );
      failure(
        await cli('key', 'create', '--workspace', id, '--name', 'k', '--scopes', ' , '),
        2,
        /at least one scope/,
      );
      failure(await cli('key', 'create', '--workspace', id, '--name', 'k'), 2, /--scopes is required/);
      failure(
        await cli(
          'key',
          'create',
          '--workspace',
          '00000000-0000-7000-8000-000000000000',
          '--name',
          'k',
          '--scopes',
          'read',
        ),
        1,
        /no workspace with id 00000000-0000-7000-8000-000000000000/,
      );
    });

    it('workspace plan sets the allowances; a flag left out is unlimited', async () => {
      const ws = json(await cli('workspace', 'create', '--name', 'Plans', '--json'));
      const id = String(ws.workspace_id);
      const plan = async () =>
        store.db
          .selectFrom('workspaces')
          .select(['plan_voice_minutes', 'plan_sessions', 'plan_calls'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();

      const set = await cli('workspace', 'plan', '--workspace', id, '--voice-minutes', '500', '--calls', '0');
      expect(set.code).toBe(0);
      expect(set.stdout).toBe(
        `Plan of workspace ${id} per month (UTC): voice minutes 500, sessions unlimited, calls 0.\n`,
      );
      expect(await plan()).toEqual({ plan_voice_minutes: 500, plan_sessions: null, plan_calls: 0 });

      expect(json(await cli('workspace', 'plan', '--workspace', id, '--sessions', '10', '--json'))).toEqual({
        workspace_id: id,
        plan: { voice_minutes: null, sessions: 10, calls: null },
      });
      expect(await plan()).toEqual({ plan_voice_minutes: null, plan_sessions: 10, plan_calls: null });

      expect((await cli('workspace', 'plan', '--workspace', id)).code).toBe(0);
      expect(await plan()).toEqual({ plan_voice_minutes: null, plan_sessions: null, plan_calls: null });

      failure(
        await cli('workspace', 'plan', '--workspace', id, '--calls=-1'),
        2,
        /--calls must be a whole number/,
      );
      failure(
        await cli('workspace', 'plan', '--workspace', id, '--calls', '-1'),
        2,
        /^switchboard: workspace plan: --calls -1: a value starting with "-" is written --calls=-1\n$/,
      );
      failure(
        await cli('workspace', 'plan', '--workspace', id, '--sessions', '1.5'),
        2,
        /--sessions must be a whole number/,
      );
      failure(await cli('workspace', 'plan', '--workspace', 'nope'), 1, /no workspace with id nope/);
    });

    it('answers mistakes with one line on stderr and a non-zero status', async () => {
      failure(await cli('frobnicate'), 2, /unknown command "frobnicate"/);
      failure(await cli('workspace', 'delete'), 2, /unknown command "workspace delete"/);
      failure(
        await cli('workspace', 'create', '--name', 'x', '--colour', 'red'),
        2,
        /Unknown option '--colour'/,
      );
      failure(await cli('workspace', 'create', '--json'), 2, /--name is required/);
      failure(await cli('workspace', 'create', '--name'), 2, /argument missing/);
      failure(await cli('workspace', 'create', '--name', 'x', 'extra'), 2, /Unexpected argument 'extra'/);
      failure(await cli('workspace', 'create', '--name', 'x', '--owner-email', 'nobody'), 2, /not an e-mail/);
      failure(await cli('serve', '--role', 'everything'), 2, /--role must be one of all, api, sip, worker/);
      failure(
        await cli('chat', '--workflow', 'w', '--variables', '{nope'),
        2,
        /--variables is not valid JSON/,
      );
      failure(await cli('chat', '--workflow', 'w', '--variables', '[1]'), 2, /must be a JSON object/);
      failure(await cli('chat'), 2, /--workflow is required/);
      const none = await cli();
      expect(none.code).toBe(2);
      expect(none.stdout).toBe('');
      expect(none.stderr).toContain('Usage: switchboard <command>');
    });

    it('serve hands the configuration and the role to the service', async () => {
      served.length = 0;
      expect(await cli('serve')).toEqual({ code: 0, stdout: '', stderr: '' });
      expect((await cli('serve', '--role', 'worker')).code).toBe(0);
      expect(served.map((s) => s.role)).toEqual(['all', 'worker']);
      if (cs.env.SWITCHBOARD_DATA_DIR) expect(served[0]!.dataDir).toBe(cs.env.SWITCHBOARD_DATA_DIR);
    });

    it('prints help on stdout with status 0', async () => {
      for (const argv of [
        ['--help'],
        ['help'],
        ['workspace', 'create', '--help'],
        ['key', 'create', '--help'],
      ]) {
        const r = await cli(...argv);
        expect(r.code, argv.join(' ')).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(/^Usage: switchboard /);
      }
      expect((await cli('workspace', 'plan', '--help')).stdout).toContain('--voice-minutes N');
    });

    it('reports a bad environment as one line', async () => {
      let stderr = '';
      const code = await runCli(['migrate'], {
        stdout: { write: () => true },
        stderr: { write: (s: string) => (stderr += s) },
        env: { ...cs.env, DATABASE_URL: 'mysql://nope' },
      });
      expect(code).toBe(1);
      expect(stderr).toBe('switchboard: configuration: DATABASE_URL must be a postgres:// URL\n');
    });
  },
);

describe('the built command line', () => {
  it(
    'runs `node bin/switchboard.js workspace create --json` against a fresh data dir',
    { timeout: 240_000 },
    async (ctx) => {
      // Built by `npm install`; rebuilt here only when a source is newer. Type errors in code still
      // in progress elsewhere do not stop tsc from emitting, so only a missing output skips the test.
      if (!serverBuildFresh()) {
        await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT }).catch(() => undefined);
      }
      if (!fs.existsSync(path.join(ROOT, 'dist/src/cli/main.js'))) ctx.skip();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bin-'));
      try {
        const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: dir, LOG_LEVEL: 'silent' };
        const { stdout, stderr } = await run(
          process.execPath,
          [path.join(ROOT, 'bin/switchboard.js'), 'workspace', 'create', '--name', 'Built', '--json'],
          { cwd: ROOT, env },
        );
        expect(stderr).toBe('');
        const out = JSON.parse(stdout) as Record<string, string>;
        expect(Object.keys(out).sort()).toEqual(['api_key', 'workspace_id']);
        expect(out.api_key).toMatch(/^pk_live_/);
        expect(fs.existsSync(path.join(dir, 'switchboard.db'))).toBe(true);

        const bad = await run(process.execPath, [path.join(ROOT, 'bin/switchboard.js'), 'nope'], {
          cwd: ROOT,
          env,
        }).then(
          () => null,
          (e: { code: number; stdout: string; stderr: string }) => e,
        );
        expect(bad).toMatchObject({ code: 2, stdout: '' });
        expect(bad!.stderr).toBe('switchboard: unknown command "nope" (see switchboard --help)\n');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
