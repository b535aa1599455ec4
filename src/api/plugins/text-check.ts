// Refuses text that no store keeps as sent (shared/text.ts), before a route sees it: without this
// a NUL character answered 500 on PostgreSQL and was stored on SQLite. Refused alike on every
// store: 422 naming the field for a body or a declared query field, 404 for a path id (an id
// that cannot exist is an unknown id). Query fields a route does not declare are ignored, as always.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { findBadText } from '../../shared/text.js';

/** The query fields a route declares; the others are ignored, whatever they hold. */
function declaredQuery(request: FastifyRequest): Record<string, unknown> | undefined {
  const schema = request.routeOptions.schema?.querystring as
    { properties?: Record<string, unknown> } | undefined;
  if (!schema?.properties || !request.query) return undefined;
  const query = request.query as Record<string, unknown>;
  const declared: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) if (key in query) declared[key] = query[key];
  return declared;
}

function check(request: FastifyRequest): void {
  if (request.params && findBadText(request.params)) throw new NotFoundError();
  for (const part of [declaredQuery(request), request.body]) {
    const bad = findBadText(part);
    if (bad) {
      const field = bad.field || 'body';
      throw new ValidationError({ [field]: [bad.reason] }, `The ${field} field ${bad.reason}.`);
    }
  }
}

/** Every route's params, query and body are checked after authentication, before validation. */
export function registerTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      check(request);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
}
