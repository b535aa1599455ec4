// `switchboard workspace create --name NAME [--owner-email EMAIL] [--json]`: a new workspace and
// an API key with every scope, printed once.
import { createWorkspace } from '../modules/workspaces/workspaces.service.js';
import { systemClock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { type CliIo, parseFlags, printJson, printLine, required, UsageError, showHelp } from './io.js';
import { cliConfig, withStore } from './open-store.js';

export const help = `Usage: switchboard workspace create --name NAME [--owner-email EMAIL] [--json]

Creates a workspace and an API key carrying every scope. The key is shown only now.
  --name NAME           workspace name (required)
  --owner-email EMAIL   where owner e-mails go
  --json                print {"workspace_id": "…", "api_key": "pk_live_…"}`;

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

export async function workspaceCreateCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'workspace create';
  const flags = parseFlags(
    argv,
    { name: { type: 'string' }, 'owner-email': { type: 'string' }, json: { type: 'boolean' } },
    cmd,
  );
  if (flags.help) return showHelp(io, help);
  const name = required(flags.name, 'name', cmd);
  if (name.length > 200) throw new UsageError(`${cmd}: --name must be at most 200 characters`);
  const ownerEmail = flags['owner-email']?.trim() || null;
  if (ownerEmail !== null && !EMAIL_RE.test(ownerEmail)) {
    throw new UsageError(`${cmd}: --owner-email "${ownerEmail}" is not an e-mail address`);
  }

  const { workspace, apiKey } = await withStore(cliConfig(io.env), (store) =>
    createWorkspace({ db: store.db, clock: systemClock, newId }, { name, ownerEmail }),
  );
  if (flags.json) {
    printJson(io, { workspace_id: workspace.id, api_key: apiKey });
  } else {
    printLine(io, `Workspace "${workspace.name}" created: ${workspace.id}`);
    printLine(io, `API key (every scope; shown only now): ${apiKey}`);
  }
  return 0;
}
