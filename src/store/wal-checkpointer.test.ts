import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from './database.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function walDatabase(): { sqlite: SQLite.Database; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-ckpt-'));
  dirs.push(dir);
  const file = path.join(dir, 'store.db');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.exec('create table t (id integer primary key, v text)');
  return { sqlite, file };
}

/** About 2,500 pages of 4 KiB: well past SQLite's own 1,000-page checkpoint threshold. */
function writeMuch(sqlite: SQLite.Database): void {
  const insert = sqlite.prepare('insert into t (v) values (?)');
  for (let i = 0; i < 2500; i++) insert.run('x'.repeat(3000));
}

describe('WalCheckpointer', () => {
  it('turns the connection’s own checkpoints off, and its thread copies the log into the file', async () => {
    const { sqlite, file } = walDatabase();
    const checkpointer = WalCheckpointer.start(sqlite, file);
    expect(await checkpointer.ready).toBe(true);
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    writeMuch(sqlite);
    await vi.waitFor(() => expect(fs.statSync(file).size).toBeGreaterThan(2500 * 3000), {
      timeout: 10_000,
    });
    await checkpointer.close();
    sqlite.close();
  });

  it('leaves every commit of the connection free of checkpoints (the log grows until the thread runs)', async () => {
    const { sqlite, file } = walDatabase();
    const checkpointer = WalCheckpointer.start(sqlite, file);
    expect(await checkpointer.ready).toBe(true);
    await checkpointer.close();
    const before = fs.statSync(file).size;
    writeMuch(sqlite);
    expect(fs.statSync(file).size).toBe(before);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(2500 * 3000);
    sqlite.close();
    // Closing the last connection checkpoints what is left: nothing is lost.
    const reopened = new SQLite(file);
    expect(reopened.prepare('select count(*) as n from t').get()).toEqual({ n: 2500 });
    reopened.close();
  });

  it('closed before its thread is up, stops it and leaves the connection checkpointing', async () => {
    const { sqlite, file } = walDatabase();
    const checkpointer = WalCheckpointer.start(sqlite, file);
    await checkpointer.close();
    expect(await checkpointer.ready).toBe(false);
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    sqlite.close();
  });

  it('runs under a file store, which closes with every row in the database file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-store-'));
    dirs.push(dir);
    const file = path.join(dir, 'switchboard.db');
    const store = await openStore({ sqlitePath: file });
    await store.db.schema.createTable('t').addColumn('v', 'text').execute();
    for (let i = 0; i < 100; i++)
      await store.db
        .insertInto('t' as never)
        .values({ v: `row ${i}` } as never)
        .execute();
    await store.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reopened = new SQLite(file);
    expect(reopened.prepare('select count(*) as n from t').get()).toEqual({ n: 100 });
    reopened.close();
  });
});
