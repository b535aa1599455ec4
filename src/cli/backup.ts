// `switchboard backup --to FILE` and `switchboard restore --from FILE`: a consistent copy of the
// embedded store (with the server key and recordings) taken while the service runs, and its return
// into an empty data directory (src/ops/backup.ts). PostgreSQL is backed up with its own tools
// (docs/operations.md).
import path from 'node:path';
import { backupDataDir, restoreDataDir } from '../ops/backup.js';
import { CliError, type CliIo, parseFlags, printJson, printLine, required, showHelp } from './io.js';
import { cliConfig } from './open-store.js';

export const backupHelp = `Usage: switchboard backup --to FILE [--json]

Copies the embedded store (SWITCHBOARD_DATA_DIR) into FILE while the service may run: the SQLite
database (online backup, progress on stderr), the server key, and call recordings.
  --to FILE   where to write the backup (replaced once complete)
  --json      print {"file", "entries": [{"name", "size"}]}
With DATABASE_URL set, use pg_dump instead (docs/operations.md).`;

export const restoreHelp = `Usage: switchboard restore --from FILE [--json]

Restores a backup made by switchboard backup into SWITCHBOARD_DATA_DIR, which must hold no store.
  --from FILE   the backup
  --json        print {"data_dir", "entries": [{"name", "size"}]}`;

function embeddedOnly(io: CliIo, cmd: string): string {
  const config = cliConfig(io.env);
  if (config.databaseUrl) {
    throw new CliError(`${cmd}: DATABASE_URL is set; back PostgreSQL up with pg_dump (docs/operations.md)`);
  }
  return config.dataDir;
}

export async function backupCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'backup';
  const flags = parseFlags(argv, { to: { type: 'string' }, json: { type: 'boolean' } }, cmd);
  if (flags.help) return showHelp(io, backupHelp);
  const to = path.resolve(required(flags.to, 'to', cmd));
  const dataDir = embeddedOnly(io, cmd);
  let shown = -1;
  const result = await backupDataDir(dataDir, to, (p) => {
    const pct =
      p.totalPages === 0 ? 100 : Math.floor((100 * (p.totalPages - p.remainingPages)) / p.totalPages);
    if (pct === shown) return;
    shown = pct;
    io.stderr.write(`backup: ${pct}% of ${p.totalPages} pages\n`);
  }).catch((err: unknown) => {
    throw new CliError(`${cmd}: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (flags.json) printJson(io, { file: to, entries: result.entries });
  else {
    printLine(io, `Backup written to ${to}:`);
    for (const e of result.entries) printLine(io, `  ${e.name}  ${e.size} bytes`);
  }
  return 0;
}

export async function restoreCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'restore';
  const flags = parseFlags(argv, { from: { type: 'string' }, json: { type: 'boolean' } }, cmd);
  if (flags.help) return showHelp(io, restoreHelp);
  const from = path.resolve(required(flags.from, 'from', cmd));
  const dataDir = embeddedOnly(io, cmd);
  let result;
  try {
    result = restoreDataDir(from, dataDir);
  } catch (err) {
    throw new CliError(`${cmd}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (flags.json) printJson(io, { data_dir: dataDir, entries: result.entries });
  else printLine(io, `Restored ${result.entries.length} file(s) into ${dataDir}.`);
  return 0;
}
