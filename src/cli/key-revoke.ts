// `switchboard key revoke --workspace ID --id KEY_ID [--json]`: revokes an API key. Running
// servers refuse it at once when they hear of it on the live-event bus (REDIS_URL: this command
// says it there too); without one, within a second, when they read the store's key epoch.
import { RedisLiveBus } from '../events/redis-live-bus.js';
import { revokeApiKey } from '../modules/api-keys/api-keys.service.js';
import { systemClock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { createLogger } from '../shared/logger.js';
import { CliError, type CliIo, parseFlags, printJson, printLine, required, showHelp } from './io.js';
import { cliConfig, withStore } from './open-store.js';

export const help = `Usage: switchboard key revoke --workspace ID --id KEY_ID [--json]

Revokes an API key; every server on this store refuses it from then on.
  --workspace ID   the key's workspace (required)
  --id KEY_ID      the key's id, as key create and GET /api-keys show it (required)
  --json           print {"id", "revoked": true}`;

export async function keyRevokeCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'key revoke';
  const flags = parseFlags(
    argv,
    { workspace: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' } },
    cmd,
  );
  if (flags.help) return showHelp(io, help);
  const workspaceId = required(flags.workspace, 'workspace', cmd);
  const id = required(flags.id, 'id', cmd);
  const config = cliConfig(io.env);
  const logger = createLogger(config.logLevel);
  const bus = config.redisUrl
    ? new RedisLiveBus({ url: config.redisUrl, nodeId: config.nodeId, logger })
    : undefined;
  try {
    const revoked = await withStore(config, (store) =>
      revokeApiKey({ db: store.db, clock: systemClock, newId, logger, keyCache: null }, bus, workspaceId, id),
    );
    if (!revoked) throw new CliError(`${cmd}: no live key ${id} in workspace ${workspaceId}`);
  } finally {
    await bus?.close();
  }
  if (flags.json) printJson(io, { id, revoked: true });
  else printLine(io, `API key ${id} revoked.`);
  return 0;
}
