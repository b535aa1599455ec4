// A span per API request (kind server), named by the route's pattern (`GET /api/v1/projects/:id`),
// so ids never multiply span names. It continues the caller's trace when the request carries a W3C
// `traceparent`. The route's hooks (authentication, idempotency) and its handler run inside it, so
// the service and store spans they cause hang under the request.
import { propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openSpan, SpanKind, tracingEnabled, type OpenSpan } from '../../shared/tracing.js';

const spans = new WeakMap<FastifyRequest, OpenSpan>();

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply, ...rest: unknown[]) => unknown;

function inRequestSpan(fn: Handler): Handler {
  return function (this: unknown, request, reply, ...rest) {
    const span = spans.get(request);
    return span
      ? span.within(() => fn.call(this, request, reply, ...rest))
      : fn.call(this, request, reply, ...rest);
  };
}

/** Registered after the plugins that add route hooks, so their hooks are wrapped too. */
export function registerTracing(app: FastifyInstance): void {
  if (!tracingEnabled()) return;

  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = openSpan(
      `${request.method} ${request.routeOptions.url ?? 'unmatched'}`,
      {
        'http.request.method': request.method,
        'http.route': request.routeOptions.url ?? 'unmatched',
        'url.path': request.url.split('?')[0]!,
        'switchboard.request_id': request.id,
      },
      { kind: SpanKind.SERVER, parent },
    );
    spans.set(request, span);
    span.within(done);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.set({ 'http.response.status_code': reply.statusCode });
      if (reply.statusCode >= 500) span.fail(`HTTP ${reply.statusCode}`);
      span.end();
    }
    done();
  });

  app.addHook('onRequestAbort', (request, done) => {
    const span = spans.get(request);
    span?.fail('client aborted');
    span?.end();
    done();
  });

  app.addHook('onRoute', (route) => {
    // A realtime socket's handler has its own signature (@fastify/websocket wraps it); its span
    // is the upgrade request's, ended when the upgrade is answered.
    if ((route as { websocket?: boolean }).websocket) return;
    route.handler = inRequestSpan(route.handler as Handler) as typeof route.handler;
    for (const hook of ['onRequest', 'preValidation', 'preHandler'] as const) {
      const own = route[hook];
      if (own === undefined) continue;
      route[hook] = [own].flat().map((fn) => inRequestSpan(fn as Handler)) as never;
    }
  });
}
