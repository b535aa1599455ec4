// Finds the command named by the first words of argv and runs it. Every failure ends here as one
// line on stderr and a non-zero status (2: called wrongly, 1: the command failed), so stdout holds
// only what the command printed (exactly one JSON document with --json).
import { backupCommand, restoreCommand } from './backup.js';
import { chatCommand } from './chat-command.js';
import { CliError, type CliIo, EXIT_FAILED, EXIT_USAGE, printLine } from './io.js';
import { keyCreateCommand } from './key-create.js';
import { keyRevokeCommand } from './key-revoke.js';
import { migrateCommand } from './migrate.js';
import { serveCommand } from './serve.js';
import { workspaceCreateCommand } from './workspace-create.js';
import { workspacePlanCommand } from './workspace-plan.js';

type Command = (argv: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  'workspace create': workspaceCreateCommand,
  'workspace plan': workspacePlanCommand,
  'key create': keyCreateCommand,
  'key revoke': keyRevokeCommand,
  chat: chatCommand,
  backup: backupCommand,
  restore: restoreCommand,
};

export const USAGE = `Usage: switchboard <command> [flags]

Commands:
  serve [--role all|api|sip|worker]       run the service (default role: all)
  migrate                                 apply schema migrations and exit
  workspace create --name NAME            new workspace and an API key with every scope
      [--owner-email EMAIL] [--json]
  workspace plan --workspace ID           set monthly (UTC) allowances; a flag left out is unlimited
      [--voice-minutes N] [--sessions N] [--calls N]
  key create --workspace ID --name NAME   new API key
      --scopes read,write,… [--json]
  key revoke --workspace ID --id KEY_ID   revoke an API key (every server refuses it from then on)
      [--json]
  chat --workflow ID [--variables JSON]   talk to a workflow over the text channel
  backup --to FILE                        copy the embedded store (and its key) while it runs
  restore --from FILE                     restore a backup into an empty data directory

The store is DATABASE_URL (PostgreSQL) when set, otherwise the SQLite file in
SWITCHBOARD_DATA_DIR (default ./data). Run "switchboard <command> --help" for details.`;

/** The command named by argv's leading words (one or two), and the rest of argv. */
function resolve(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  const two = argv.slice(0, 2).join(' ');
  if (COMMANDS[two]) return { name: two, command: COMMANDS[two], rest: argv.slice(2) };
  const one = argv[0] ?? '';
  if (COMMANDS[one]) return { name: one, command: COMMANDS[one], rest: argv.slice(1) };
  return null;
}

function oneLine(message: string): string {
  return message.split('\n')[0]!.trim() || 'failed';
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const first = argv[0];
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    if (first === undefined) {
      io.stderr.write(`${USAGE}\n`);
      return EXIT_USAGE;
    }
    printLine(io, USAGE);
    return 0;
  }
  const found = resolve(argv);
  if (!found) {
    const group = ['workspace', 'key'].includes(first) ? `${first} ${argv[1] ?? ''}`.trim() : first;
    io.stderr.write(`switchboard: unknown command "${group}" (see switchboard --help)\n`);
    return EXIT_USAGE;
  }
  try {
    return await found.command(found.rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr.write(`switchboard: ${oneLine(err.message)}\n`);
      return err.exitCode;
    }
    io.stderr.write(
      `switchboard ${found.name}: ${oneLine(err instanceof Error ? err.message : String(err))}\n`,
    );
    return EXIT_FAILED;
  }
}
