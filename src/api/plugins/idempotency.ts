// Idempotency-Key on POST (beyond the spec, as payment APIs do it): the first request with a key
// runs; a retry with the same key and the same body gets the first response replayed and creates
// nothing; the same key with another body or path is 422; a retry while the first is still running
// is 409. Only 2xx responses are kept (24 h); any other outcome frees the key, because a failed
// request wrote nothing and may safely run again.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import { toDbTime } from '../../store/database.js';
import { sendError } from './errors.js';
import { idempotencyRepo } from './idempotency.repo.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { workspaceId: string; key: string } | null;
  }
}

const TTL_MS = 24 * 60 * 60 * 1000;
/** A key left "processing" this long belongs to a request that died; it may be taken over. */
const STALE_PROCESSING_MS = 60_000;

function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

export function registerIdempotency(app: FastifyInstance, deps: ServiceDeps): void {
  app.decorateRequest('idempotency', null);
  const claim = claimHook(deps);
  const settle = settleHook(deps);

  // Only POST routes of an authenticated scope can take a key, so only they get the two hooks;
  // every other request skips them entirely.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.includes('POST') || !route.config?.scope) return;
    const preHandler = route.preHandler === undefined ? [] : [route.preHandler].flat();
    if (!preHandler.includes(claim)) route.preHandler = [claim, ...preHandler];
    const onSend = route.onSend === undefined ? [] : [route.onSend].flat();
    if (!onSend.includes(settle)) route.onSend = [settle, ...onSend];
  });
}

/**
 * The preHandler: takes the request's key, or answers for it (the first response replayed, 409
 * while the first still runs, 422 for another request); a stale or expired key is taken over.
 */
function claimHook(deps: ServiceDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.headers['idempotency-key'];
    if (raw === undefined || !request.actor) return;
    const key = Array.isArray(raw) ? raw[0]! : raw;
    if (key.length < 1 || key.length > 255) {
      return sendError(reply, 422, 'The Idempotency-Key header must be 1 to 255 characters.', {
        'Idempotency-Key': ['must be 1 to 255 characters'],
      });
    }
    const workspaceId = request.actor.workspaceId;
    const hash = requestHash(request);
    const now = deps.clock.now();

    for (let attempt = 0; attempt < 2; attempt++) {
      const taken = await idempotencyRepo.take(deps.db, {
        workspace_id: workspaceId,
        key,
        request_hash: hash,
        state: 'processing',
        response_status: null,
        response_body: null,
        created_at: toDbTime(now),
        expires_at: toDbTime(now + TTL_MS),
      });
      if (taken) {
        request.idempotency = { workspaceId, key };
        return;
      }
      const existing = await idempotencyRepo.find(deps.db, workspaceId, key);
      if (!existing) continue; // freed in between: try to take it again
      const stale =
        Date.parse(existing.expires_at) <= now ||
        (existing.state === 'processing' && Date.parse(existing.created_at) <= now - STALE_PROCESSING_MS);
      if (stale) {
        await idempotencyRepo.deleteTakenAt(deps.db, workspaceId, key, existing.created_at);
        continue;
      }
      if (existing.state === 'processing') {
        return sendError(reply, 409, 'A request with this Idempotency-Key is still being processed.');
      }
      if (existing.request_hash !== hash) {
        return sendError(reply, 422, 'This Idempotency-Key was already used with a different request.', {
          'Idempotency-Key': ['was already used with a different request'],
        });
      }
      reply.header('Idempotent-Replayed', 'true');
      return reply
        .code(existing.response_status!)
        .type('application/json')
        .serializer((p: unknown) => p as string)
        .send(existing.response_body);
    }
    return sendError(reply, 409, 'A request with this Idempotency-Key is still being processed.');
  };
}

/** The onSend hook: keeps a 2xx response for replays, frees the key on any other outcome. */
function settleHook(deps: ServiceDeps) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const idem = request.idempotency;
    if (!idem) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      await idempotencyRepo.settle(
        deps.db,
        idem.workspaceId,
        idem.key,
        reply.statusCode,
        String(payload ?? ''),
      );
    } else {
      await idempotencyRepo.delete(deps.db, idem.workspaceId, idem.key);
    }
    return payload;
  };
}
