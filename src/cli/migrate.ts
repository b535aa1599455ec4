// `switchboard migrate [--json]`: applies pending schema migrations and exits.
import { type CliIo, parseFlags, printJson, printLine, showHelp } from './io.js';
import { cliConfig, withStore } from './open-store.js';

export const help = `Usage: switchboard migrate [--json]

Applies the pending schema migrations to the store (DATABASE_URL, or the SQLite
file in SWITCHBOARD_DATA_DIR) and exits.
  --json   print {"applied": ["001-core", …]} (the migrations applied now)`;

export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, { json: { type: 'boolean' } }, 'migrate');
  if (flags.help) return showHelp(io, help);
  const applied = await withStore(cliConfig(io.env), async (_store, names) => names);
  if (flags.json) printJson(io, { applied });
  else if (applied.length) printLine(io, `Applied ${applied.length} migration(s): ${applied.join(', ')}.`);
  else printLine(io, 'The store is up to date.');
  return 0;
}
