// Authentication, rate limiting and scope checks, in that order, before the body is even parsed:
// 401 (missing/malformed/revoked key) → 429 (workspace over its window) → 403 (missing scope).
// X-RateLimit-Limit/Remaining go on every authenticated response.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeysRepo } from '../../modules/api-keys/api-keys.repo.js';
import { hashApiKey, hashesEqual, isWellFormedKey } from '../../modules/api-keys/key-format.js';
import { effectiveScopes, type Scope } from '../../modules/api-keys/scopes.js';
import type { Actor, ServiceDeps } from '../../modules/context.js';
import { toDbTime } from '../../store/database.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { ForbiddenError, RateLimitedError, UnauthenticatedError } from '../../shared/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** Scope the route needs; routes without one are public. */
    scope?: Scope;
  }
}

/** last_used_at is written at most once a minute per key, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export function registerAuth(app: FastifyInstance, deps: ServiceDeps, limiter: RateLimiter): void {
  app.decorateRequest('actor', null);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const scope = request.routeOptions.config?.scope;
    if (!scope || request.is404) return;

    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match || !isWellFormedKey(match[1]!)) {
      throw new UnauthenticatedError('Unauthenticated: send Authorization: Bearer pk_live_….');
    }
    const hash = hashApiKey(match[1]!);
    const row = await apiKeysRepo.findByHash(deps.db, hash);
    if (!row || row.revoked_at !== null || !hashesEqual(row.key_hash, hash)) {
      throw new UnauthenticatedError('Unauthenticated: the API key is unknown or revoked.');
    }

    const decision = await limiter.hit(row.workspace_id);
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);

    const scopes = effectiveScopes(JSON.parse(row.scopes) as string[]);
    if (!scopes.has(scope)) throw new ForbiddenError(scope);

    const now = deps.clock.now();
    if (row.last_used_at === null || Date.parse(row.last_used_at) <= now - TOUCH_INTERVAL_MS) {
      await apiKeysRepo.touch(deps.db, row.id, toDbTime(now));
    }
    request.actor = { workspaceId: row.workspace_id, keyId: row.id, scopes };
  });
}

/** The authenticated actor; routes with a scope always have one. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('route has no scope: no actor');
  return request.actor;
}
