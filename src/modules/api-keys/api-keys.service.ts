// API keys: created with their secret shown once, listed by prefix, revoked immediately.
// A key can only grant scopes it holds itself, so a narrow key cannot mint a wider one.
import { announce, type LivePublisher } from '../../events/live-bus.js';
import type { PageParams } from '../../shared/paging.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { toDbTime, type Db, type Executor } from '../../store/database.js';
import type { ApiKeyTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import { apiKeysRepo } from './api-keys.repo.js';
import type { ApiKey, CreateApiKey, CreatedApiKey } from './api-keys.schema.js';
import { generateApiKey } from './key-format.js';
import type { Scope } from './scopes.js';

function toApiKey(row: ApiKeyTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as string[],
    last_used_at: apiTime(row.last_used_at),
    created_at: apiTime(row.created_at),
  };
}

/** Creates a key row; shared by the API and the CLI. Returns the secret once. */
export async function insertApiKey(
  ex: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'newId'>,
  workspaceId: string,
  name: string,
  scopes: readonly string[],
): Promise<CreatedApiKey> {
  const { key, hash, prefix } = generateApiKey();
  const row: ApiKeyTable = {
    id: deps.newId(),
    workspace_id: workspaceId,
    name,
    prefix,
    key_hash: hash,
    scopes: JSON.stringify(scopes),
    last_used_at: null,
    revoked_at: null,
    created_at: toDbTime(deps.clock.now()),
  };
  await apiKeysRepo.insert(ex, row);
  return { ...toApiKey(row), key };
}

/**
 * Revokes a key (API and CLI): the row, the store's key epoch, this process's key cache, and a
 * word on the live-event bus so every other node forgets it at once. False when there was no live
 * key of that id in the workspace.
 */
export async function revokeApiKey(
  deps: Pick<ServiceDeps, 'clock' | 'newId' | 'logger'> & { db: Db; keyCache: ServiceDeps['keyCache'] },
  live: LivePublisher | undefined,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const ok = await apiKeysRepo.revoke(deps.db, workspaceId, id, toDbTime(deps.clock.now()), deps.newId());
  if (!ok) return false;
  deps.keyCache?.clear();
  await announce(live, { kind: 'api_key.revoked', key_id: id }, deps.logger);
  return true;
}

export class ApiKeysService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly live?: LivePublisher,
  ) {}

  async list(actor: Actor, page: PageParams) {
    const { rows, total } = await apiKeysRepo.listLive(this.deps.db, actor.workspaceId, page);
    return { items: rows.map(toApiKey), total };
  }

  async create(actor: Actor, input: CreateApiKey): Promise<CreatedApiKey> {
    const missing = input.scopes.filter((s) => !actor.scopes.has(s as Scope));
    if (missing.length) {
      throw ValidationError.field(
        'scopes',
        `cannot grant scopes the calling key does not hold: ${missing.join(', ')}`,
      );
    }
    return insertApiKey(this.deps.db, this.deps, actor.workspaceId, input.name, input.scopes);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    const ok = await revokeApiKey(this.deps, this.live, actor.workspaceId, id);
    if (!ok) throw new NotFoundError('API key');
  }
}
