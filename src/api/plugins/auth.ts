// Authentication, rate limiting and scope checks, in that order, before the body is even parsed:
// 401 (missing/malformed/revoked key) → 429 (workspace over its window) → 403 (missing scope).
// X-RateLimit-Limit/Remaining go on every authenticated response.
//
// This runs on every request, so it is kept cheap: the hook is attached only to routes that need a
// scope (the scope is known when the route is added, not looked up per request), the key lookup is
// one prepared query, and when the store and the limiter answer synchronously (SQLite, the
// in-process limiter) the whole check finishes without a promise. On PostgreSQL a found key is
// remembered for a few seconds (modules/api-keys/key-cache.ts), which saves a round trip per
// request; every revocation clears that cache on every node, so a revoked key fails at once.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import { apiKeysRepo, type KeyForAuth } from '../../modules/api-keys/api-keys.repo.js';
import { hashApiKey, hashesEqual, isWellFormedKey } from '../../modules/api-keys/key-format.js';
import { effectiveScopes, type Scope } from '../../modules/api-keys/scopes.js';
import type { Actor, ServiceDeps } from '../../modules/context.js';
import { toDbTime } from '../../store/database.js';
import type { RateDecision, RateLimiter } from '../rate-limit/rate-limiter.js';
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

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The credential of an `Authorization: Bearer …` header (API key, join token, metrics token). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
}

/**
 * A key's stored scopes (JSON text) as the set it effectively holds. A pure function of the text,
 * so remembering it changes nothing about what a key may do or when it stops working.
 */
const scopeSets = new Map<string, ReadonlySet<Scope>>();
function scopesOf(text: string): ReadonlySet<Scope> {
  let set = scopeSets.get(text);
  if (!set) {
    if (scopeSets.size >= 256) scopeSets.clear();
    set = effectiveScopes(JSON.parse(text) as string[]);
    scopeSets.set(text, set);
  }
  return set;
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

export function registerAuth(app: FastifyInstance, deps: ServiceDeps, limiter: RateLimiter): void {
  app.decorateRequest('actor', null);

  const admitted = (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    row: KeyForAuth,
    decision: RateDecision,
  ): void | Promise<void> => {
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);

    const scopes = scopesOf(row.scopes);
    if (!scopes.has(scope)) throw new ForbiddenError(scope);

    request.actor = { workspaceId: row.workspace_id, keyId: row.id, scopes };
    const now = deps.clock.now();
    if (row.last_used_at === null || Date.parse(row.last_used_at) <= now - TOUCH_INTERVAL_MS) {
      // The row may be the cached one: it now says what the store will, so the next request
      // within the minute does not write again.
      row.last_used_at = toDbTime(now);
      return apiKeysRepo.touch(deps.db, row.id, row.last_used_at);
    }
  };

  const found = (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope,
    hash: string,
    row: KeyForAuth | undefined,
  ): void | Promise<void> => {
    if (!row || row.revoked_at !== null || !hashesEqual(row.key_hash, hash)) {
      throw new UnauthenticatedError('Unauthenticated: the API key is unknown or revoked.');
    }
    if (limiter.hitSync) return admitted(request, reply, scope, row, limiter.hitSync(row.workspace_id));
    return limiter.hit(row.workspace_id).then((d) => admitted(request, reply, scope, row, d));
  };

  const authenticate = (request: FastifyRequest, reply: FastifyReply, scope: Scope): void | Promise<void> => {
    const key = bearerToken(request);
    if (key === undefined || !isWellFormedKey(key)) {
      throw new UnauthenticatedError('Unauthenticated: send Authorization: Bearer pk_live_….');
    }
    const hash = hashApiKey(key);
    const cache = deps.keyCache;
    const cached = cache?.get(hash);
    if (cached) return found(request, reply, scope, hash, cached);
    const stamp = cache?.stamp ?? 0;
    const row = apiKeysRepo.findByHash(deps.db, hash);
    if (!isPromise(row)) return found(request, reply, scope, hash, row);
    return row.then((r) => {
      if (r && cache) cache.set(hash, r, stamp);
      return found(request, reply, scope, hash, r);
    });
  };

  const hooks = new Map<Scope, onRequestHookHandler>();
  const hookFor = (scope: Scope): onRequestHookHandler => {
    let hook = hooks.get(scope);
    if (!hook) {
      hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const pending = authenticate(request, reply, scope);
        if (pending) pending.then(() => done(), done);
        else done();
      };
      hooks.set(scope, hook);
    }
    return hook;
  };

  // Routes that declare a scope get the check as their first onRequest hook.
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (!scope) return;
    const hook = hookFor(scope);
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    if (!own.includes(hook)) route.onRequest = [hook, ...own];
  });
}

/** The authenticated actor; routes with a scope always have one. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('route has no scope: no actor');
  return request.actor;
}
