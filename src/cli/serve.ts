// `switchboard serve [--role all|api|sip|worker]`: runs the service (src/main.ts). The service
// is imported only here, so the other commands start without loading the HTTP and SIP stacks.
import { isRole, ROLES } from '../config/roles.js';
import { type CliIo, parseFlags, showHelp, UsageError } from './io.js';
import { cliConfig } from './open-store.js';

export const help = `Usage: switchboard serve [--role all|api|sip|worker]

Runs the service on the configured store (SWITCHBOARD_DATA_DIR or DATABASE_URL).
  --role all      every part in one process (default)
  --role api      the HTTP API only
  --role sip      SIP signalling and media only
  --role worker   background work (webhook deliveries) only`;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, { role: { type: 'string' } }, 'serve');
  if (flags.help) return showHelp(io, help);
  const role = flags.role ?? 'all';
  if (!isRole(role)) throw new UsageError(`serve: --role must be one of ${ROLES.join(', ')}, got "${role}"`);
  const config = cliConfig(io.env);
  const { runService } = await import('../main.js');
  await runService(config, role);
  return 0;
}
