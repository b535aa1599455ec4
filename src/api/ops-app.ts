// The HTTP server of a node that serves no API (roles sip and worker, with METRICS_PORT set): its
// GET /metrics, exactly as the API's (same access rule, same error envelope), and GET /healthz for
// its supervisor. Nothing else answers but 404.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Metrics } from '../ops/metrics.js';
import { UnavailableError } from '../shared/errors.js';
import { pingStore, type Db, type Dialect } from '../store/database.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerMetrics } from './plugins/metrics.js';

export interface OpsAppOptions {
  db: Db;
  dialect: Dialect;
  metrics: Metrics;
  token: string | undefined;
}

export async function buildOpsApp(options: OpsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit: 1024 });
  registerErrorHandling(app);
  registerMetrics(app, options.metrics, options.token);
  app.get('/healthz', async () => {
    try {
      await pingStore(options.db);
    } catch {
      throw new UnavailableError('The store does not answer.');
    }
    return { status: 'ok', store: options.dialect };
  });
  await app.ready();
  return app;
}
