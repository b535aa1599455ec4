// Backup and restore of the embedded store's data directory (`switchboard backup` / `restore`).
// A backup is one file holding what reading the store needs:
//   - switchboard.db: a consistent copy taken with SQLite's online backup API while the service
//     runs and writes (pages are copied in steps; a write meanwhile restarts the copy of what it
//     touched, so the copy is one moment of the database);
//   - server.key: the master key that seals secrets at rest (webhook secrets, trunk passwords),
//     when the data directory holds it (not when SWITCHBOARD_SECRET_KEY is set: then the operator
//     keeps the key and must set the same one where the backup is restored);
//   - recordings/*: call recordings, when there are any.
// The file format is ours and plain: a first line `switchboard-backup 1`, then per entry one line
// of JSON {"name", "size"} and exactly that many bytes. No compression: the database pages of a
// backup are mostly the store's own, and recordings are already audio. Both ways the bytes are
// streamed in 1 MiB chunks, so memory stays flat however large the recordings are.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KEY_FILE } from '../shared/server-key.js';
import { SQLITE_FILE } from '../store/configured-store.js';

const MAGIC = 'switchboard-backup 1\n';
// Entries carry the names the files have in the data directory.
const DB_FILE = SQLITE_FILE;
const RECORDINGS = 'recordings';

export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
}

export interface BackupResult {
  entries: Array<{ name: string; size: number }>;
}

/** Pages copied per step: small enough that the service's writes wait for no step noticeably. */
const PAGES_PER_STEP = 256;

/**
 * Writes a backup of `dataDir` to `file` (replaced when it exists, only once complete).
 * `progress` hears each step of the database copy.
 */
export async function backupDataDir(
  dataDir: string,
  file: string,
  progress?: (p: BackupProgress) => void,
): Promise<BackupResult> {
  const dbPath = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(dbPath)) throw new Error(`no store at ${dbPath}`);
  const work = `${file}.partial-${process.pid}`;
  const dbCopy = `${work}.db`;
  const source = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    // better-sqlite3 reports before each step; the last word, all pages copied, is ours.
    let totalPages = 0;
    await source.backup(dbCopy, {
      progress(p) {
        totalPages = p.totalPages;
        progress?.(p);
        return PAGES_PER_STEP;
      },
    });
    progress?.({ totalPages, remainingPages: 0 });
  } finally {
    source.close();
  }
  const entries: Array<{ name: string; from: string }> = [{ name: DB_FILE, from: dbCopy }];
  const key = path.join(dataDir, KEY_FILE);
  if (fs.existsSync(key)) entries.push({ name: KEY_FILE, from: key });
  const recordings = path.join(dataDir, RECORDINGS);
  if (fs.existsSync(recordings)) {
    for (const name of fs.readdirSync(recordings).sort()) {
      const from = path.join(recordings, name);
      if (fs.statSync(from).isFile()) entries.push({ name: `${RECORDINGS}/${name}`, from });
    }
  }
  const out = fs.openSync(work, 'w', 0o600);
  const written: BackupResult['entries'] = [];
  try {
    fs.writeSync(out, MAGIC);
    for (const e of entries) written.push(appendEntry(out, e.name, e.from));
    fs.fsyncSync(out);
  } finally {
    fs.closeSync(out);
    fs.rmSync(dbCopy, { force: true });
  }
  fs.renameSync(work, file);
  return { entries: written };
}

/** Bytes moved per read: memory stays this size however large a recording is. */
const CHUNK = 1024 * 1024;

/**
 * Appends one entry, streamed in chunks. Its size is the file's when opened: a recording still
 * being written is backed up as far as it had come (its header is mended on the next start).
 */
function appendEntry(out: number, name: string, from: string): { name: string; size: number } {
  const input = fs.openSync(from, 'r');
  try {
    const size = fs.fstatSync(input).size;
    fs.writeSync(out, `${JSON.stringify({ name, size })}\n`);
    copyBytes(input, 0, out, size);
    return { name, size };
  } finally {
    fs.closeSync(input);
  }
}

/** Copies `size` bytes from `input` at `position` to the end of `out`, a chunk at a time. */
function copyBytes(input: number, position: number, out: number, size: number): void {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, size)));
  let done = 0;
  while (done < size) {
    const n = fs.readSync(input, buffer, 0, Math.min(buffer.length, size - done), position + done);
    if (n === 0) throw new Error('the file shrank while it was being copied');
    fs.writeSync(out, buffer, 0, n);
    done += n;
  }
}

/** Where an entry's name may put a file: the database, the key, or a file directly in recordings/. */
function entryPath(dataDir: string, name: string): string {
  if (name === DB_FILE || name === KEY_FILE) return path.join(dataDir, name);
  const m = /^recordings\/([A-Za-z0-9._-]+)$/.exec(name);
  if (!m || m[1] === '.' || m[1] === '..') throw new Error(`not a switchboard backup: bad entry "${name}"`);
  return path.join(dataDir, RECORDINGS, m[1]!);
}

/** An entry of a backup file: its name, and where its bytes start and how many there are. */
interface Entry {
  name: string;
  start: number;
  size: number;
}

/** Reads the entry headers only (the contents are skipped), checking the file is whole. */
function readEntries(fd: number, file: string): Entry[] {
  const total = fs.fstatSync(fd).size;
  const magic = Buffer.alloc(MAGIC.length);
  fs.readSync(fd, magic, 0, magic.length, 0);
  if (magic.toString('latin1') !== MAGIC) throw new Error(`${file} is not a switchboard backup`);
  const entries: Entry[] = [];
  // A header is one short JSON line; 4 KiB holds any that names a file we would accept.
  const line = Buffer.alloc(4096);
  let at = MAGIC.length;
  while (at < total) {
    const n = fs.readSync(fd, line, 0, line.length, at);
    const eol = line.subarray(0, n).indexOf(10);
    if (eol < 0) throw new Error(`${file} is cut short`);
    const header = JSON.parse(line.subarray(0, eol).toString('utf8')) as { name: string; size: number };
    const start = at + eol + 1;
    if (typeof header.name !== 'string' || !Number.isSafeInteger(header.size) || header.size < 0) {
      throw new Error(`not a switchboard backup: bad entry header in ${file}`);
    }
    if (start + header.size > total) throw new Error(`${file} is cut short`);
    entries.push({ name: header.name, start, size: header.size });
    at = start + header.size;
  }
  return entries;
}

/** Restores a backup into `dataDir`, which must hold no store yet (it is created when missing). */
export function restoreDataDir(file: string, dataDir: string): BackupResult {
  const fd = fs.openSync(file, 'r');
  try {
    const entries = readEntries(fd, file);
    if (fs.existsSync(path.join(dataDir, DB_FILE))) {
      throw new Error(`${dataDir} already holds a store; restore into an empty data directory`);
    }
    if (!entries.some((e) => e.name === DB_FILE)) throw new Error(`${file} holds no database`);
    // Every name is checked before anything is written.
    const targets = entries.map((e) => ({ ...e, to: entryPath(dataDir, e.name) }));
    fs.mkdirSync(dataDir, { recursive: true });
    for (const e of targets) {
      fs.mkdirSync(path.dirname(e.to), { recursive: true });
      const out = fs.openSync(e.to, 'wx', e.name === KEY_FILE ? 0o600 : 0o644);
      try {
        copyBytes(fd, e.start, out, e.size);
      } finally {
        fs.closeSync(out);
      }
    }
    return { entries: entries.map((e) => ({ name: e.name, size: e.size })) };
  } finally {
    fs.closeSync(fd);
  }
}
