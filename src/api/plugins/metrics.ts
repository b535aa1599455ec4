// GET /metrics (Prometheus text format) and the per-route HTTP duration every answer records.
// Metrics say how busy the node is and which routes it serves, so they are answered to loopback
// clients (a Prometheus or node exporter on the same host) and, when METRICS_TOKEN is set, to
// anyone presenting it as a bearer token; anyone else gets the spec's envelope with 401 or 403.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../../ops/metrics.js';
import { AppError, UnauthenticatedError } from '../../shared/errors.js';
import { bearerToken } from './auth.js';

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

function sameSecret(a: string, b: string): boolean {
  // Compared as digests, so neither the length nor the bytes leak through timing.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function checkAccess(request: FastifyRequest, token: string | undefined): void {
  if (isLoopback(request.socket.remoteAddress)) return;
  if (!token) {
    throw new AppError(
      403,
      'Forbidden: metrics are answered to loopback clients unless METRICS_TOKEN is set.',
    );
  }
  const given = bearerToken(request);
  if (given === undefined || !sameSecret(given, token)) {
    throw new UnauthenticatedError('Unauthenticated: send Authorization: Bearer $METRICS_TOKEN.');
  }
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  // Synchronous hook: no promise per response. The label is the route's pattern
  // (/api/v1/projects/:id), so ids never multiply the series; unmatched URLs share one label.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkAccess(request, token);
    const text = await metrics.render();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
