// `switchboard key create --workspace ID --name NAME --scopes read,write,… [--json]`: a new API
// key for a workspace; the secret is printed once. It works on the server's next request, since
// a key the server has not seen is always looked up in the store.
import { insertApiKey } from '../modules/api-keys/api-keys.service.js';
import { isScope, SCOPES } from '../modules/api-keys/scopes.js';
import { findWorkspace } from '../modules/workspaces/workspaces.service.js';
import { systemClock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import {
  CliError,
  type CliIo,
  parseFlags,
  printJson,
  printLine,
  required,
  UsageError,
  showHelp,
} from './io.js';
import { cliConfig, withStore } from './open-store.js';

export const help = `Usage: switchboard key create --workspace ID --name NAME --scopes SCOPES [--json]

Creates an API key. The secret is shown only now.
  --workspace ID   workspace id (required)
  --name NAME      a label for the key (required)
  --scopes SCOPES  comma-separated, from: ${SCOPES.join(', ')} (write implies read)
  --json           print {"id", "key", "prefix", "scopes"}`;

/** Comma-separated scopes, each known, duplicates dropped, order kept. */
export function parseScopes(text: string, cmd: string): string[] {
  const list = [...new Set(text.split(',').map((s) => s.trim()))].filter(Boolean);
  const unknown = list.filter((s) => !isScope(s));
  if (unknown.length) {
    throw new UsageError(`${cmd}: unknown scope(s) ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  }
  if (list.length === 0) throw new UsageError(`${cmd}: --scopes needs at least one scope`);
  return list;
}

export async function keyCreateCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'key create';
  const flags = parseFlags(
    argv,
    {
      workspace: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      json: { type: 'boolean' },
    },
    cmd,
  );
  if (flags.help) return showHelp(io, help);
  const workspaceId = required(flags.workspace, 'workspace', cmd);
  const name = required(flags.name, 'name', cmd);
  if (name.length > 200) throw new UsageError(`${cmd}: --name must be at most 200 characters`);
  const scopes = parseScopes(required(flags.scopes, 'scopes', cmd), cmd);

  const created = await withStore(cliConfig(io.env), async (store) => {
    if (!(await findWorkspace({ db: store.db }, workspaceId))) {
      throw new CliError(`${cmd}: no workspace with id ${workspaceId}`);
    }
    return insertApiKey(store.db, { clock: systemClock, newId }, workspaceId, name, scopes);
  });
  if (flags.json) {
    printJson(io, { id: created.id, key: created.key, prefix: created.prefix, scopes: created.scopes });
  } else {
    printLine(io, `API key "${created.name}" (${created.id}) with scopes ${created.scopes.join(', ')}:`);
    printLine(io, `${created.key}   (shown only now)`);
  }
  return 0;
}
