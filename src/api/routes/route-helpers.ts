// Small helpers the thin route files share.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceDeps } from '../../modules/context.js';
import type { PageRequest } from '../../shared/paging.js';

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/** The app as route files register on it (TypeBox schemas give the handlers their types). */
export type TypedRoutes = ReturnType<typeof typed>;

/** The list's absolute path (PUBLIC_BASE_URL + route) and query, for `links` and `meta.path`. */
export function pageRequest(request: FastifyRequest, deps: Pick<ServiceDeps, 'config'>): PageRequest {
  const path = request.url.split('?')[0]!;
  return {
    path: `${deps.config.publicBaseUrl}${path}`,
    query: (request.query ?? {}) as Record<string, unknown>,
  };
}
