// `switchboard backup` taken while writes keep landing in the store, restored into a fresh data
// directory: every row committed before the backup began is there, the copy is a sound database,
// secrets sealed with the server key open with the restored key, and recordings come along.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { runCli } from '../../src/cli/dispatch.js';
import { backupDataDir, restoreDataDir } from '../../src/ops/backup.js';
import type { CliIo } from '../../src/cli/io.js';
import { SecretBox } from '../../src/shared/secret-box.js';
import { deriveServerKeys, loadMasterKey } from '../../src/shared/server-key.js';
import { migrateToLatest, openStore } from '../../src/store/database.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-backup-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function cli(env: Record<string, string>, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { LOG_LEVEL: 'silent', ...env },
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe('backup and restore of the embedded store', () => {
  it('copies a store under write load into a fresh directory with its key and recordings', async () => {
    const source = tmp();
    const store = await openStore({ sqlitePath: path.join(source, 'switchboard.db') });
    await migrateToLatest(store.db);
    const box = new SecretBox(deriveServerKeys(loadMasterKey(undefined, source)).secretBox);
    await store.db
      .insertInto('server_settings')
      .values({ name: 'sealed', value: box.seal('whsec_the-secret') })
      .execute();
    fs.mkdirSync(path.join(source, 'recordings'));
    fs.writeFileSync(path.join(source, 'recordings', 'call-1.wav'), Buffer.from('RIFF-not-really'));
    for (let i = 0; i < 2000; i++) {
      await store.db
        .insertInto('server_settings')
        .values({ name: `before-${i}`, value: 'x'.repeat(200) })
        .execute();
    }

    // Writes keep landing while the backup copies pages.
    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        await store.db
          .insertInto('server_settings')
          .values({ name: `during-${written}`, value: 'y' })
          .execute();
        written++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const file = path.join(tmp(), 'store.sbk');
    const backup = await cli({ SWITCHBOARD_DATA_DIR: source }, 'backup', '--to', file, '--json');
    writing = false;
    await load;
    await store.close();
    expect(backup.code).toBe(0);
    expect(backup.stderr).toMatch(/^backup: \d+% of \d+ pages\n/);
    expect(backup.stderr).toContain('backup: 100%');
    const out = JSON.parse(backup.stdout) as { entries: Array<{ name: string }> };
    expect(out.entries.map((e) => e.name)).toEqual(['switchboard.db', 'server.key', 'recordings/call-1.wav']);

    const target = path.join(tmp(), 'restored');
    const restored = await cli({ SWITCHBOARD_DATA_DIR: target }, 'restore', '--from', file);
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    // A second restore on top refuses: the directory holds a store now.
    const again = await cli({ SWITCHBOARD_DATA_DIR: target }, 'restore', '--from', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds a store/);

    const copy = await openStore({ sqlitePath: path.join(target, 'switchboard.db') });
    try {
      const rows = await copy.db.selectFrom('server_settings').select(['name', 'value']).execute();
      const names = new Set(rows.map((r) => r.name));
      for (let i = 0; i < 2000; i++) expect(names.has(`before-${i}`)).toBe(true);
      // One moment of the store: the writes during the backup are a prefix of what was written.
      const during = rows.filter((r) => r.name.startsWith('during-')).length;
      for (let i = 0; i < during; i++) expect(names.has(`during-${i}`)).toBe(true);
      expect(during).toBeLessThanOrEqual(written);
      const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(copy.db);
      expect(check.rows).toEqual([{ integrity_check: 'ok' }]);
      const restoredBox = new SecretBox(deriveServerKeys(loadMasterKey(undefined, target)).secretBox);
      const sealed = rows.find((r) => r.name === 'sealed')!.value;
      expect(restoredBox.open(sealed)).toBe('whsec_the-secret');
    } finally {
      await copy.close();
    }
    expect(fs.readFileSync(path.join(target, 'recordings', 'call-1.wav'), 'utf8')).toBe('RIFF-not-really');
  });

  it('refuses PostgreSQL, a missing store and a file that is not a backup, in one line', async () => {
    const pg = await cli({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x' }, 'backup', '--to', '/tmp/x');
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/pg_dump/);
    const empty = await cli({ SWITCHBOARD_DATA_DIR: tmp() }, 'backup', '--to', path.join(tmp(), 'b'));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no store/);
    const junk = path.join(tmp(), 'junk');
    fs.writeFileSync(junk, 'hello');
    const bad = await cli({ SWITCHBOARD_DATA_DIR: path.join(tmp(), 'd') }, 'restore', '--from', junk);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a switchboard backup/);
  });

  it('streams recordings larger than its chunk both ways, byte for byte', async () => {
    const dir = tmp();
    const store = await openStore({ sqlitePath: path.join(dir, 'switchboard.db') });
    await migrateToLatest(store.db);
    await store.close();
    fs.mkdirSync(path.join(dir, 'recordings'));
    // 3.5 chunks of 1 MiB, and an empty file: the loop's edges.
    const big = randomBytes(3.5 * 1024 * 1024);
    fs.writeFileSync(path.join(dir, 'recordings', 'long-call.wav'), big);
    fs.writeFileSync(path.join(dir, 'recordings', 'empty.wav'), '');
    const file = path.join(tmp(), 'b.sbk');
    const made = await backupDataDir(dir, file);
    expect(made.entries.find((e) => e.name === 'recordings/long-call.wav')?.size).toBe(big.length);
    const target = path.join(tmp(), 'restored');
    const restored = restoreDataDir(file, target);
    expect(restored.entries).toEqual(made.entries);
    expect(fs.readFileSync(path.join(target, 'recordings', 'long-call.wav')).equals(big)).toBe(true);
    expect(fs.statSync(path.join(target, 'recordings', 'empty.wav')).size).toBe(0);
  });

  it('writes nothing from a backup that is cut short or names a file outside the data directory', async () => {
    const dir = tmp();
    const store = await openStore({ sqlitePath: path.join(dir, 'switchboard.db') });
    await migrateToLatest(store.db);
    await store.close();
    const file = path.join(tmp(), 'b.sbk');
    await backupDataDir(dir, file);
    const whole = fs.readFileSync(file);

    const cut = path.join(tmp(), 'cut.sbk');
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 10));
    const intoCut = path.join(tmp(), 'from-cut');
    expect(() => restoreDataDir(cut, intoCut)).toThrow(/cut short/);
    expect(fs.existsSync(intoCut)).toBe(false);

    const evil = path.join(tmp(), 'evil.sbk');
    fs.writeFileSync(evil, Buffer.concat([whole, Buffer.from('{"name":"recordings/../../x","size":1}\nx')]));
    const intoEvil = path.join(tmp(), 'from-evil');
    expect(() => restoreDataDir(evil, intoEvil)).toThrow(/bad entry/);
    expect(fs.existsSync(intoEvil)).toBe(false);
  });
});
