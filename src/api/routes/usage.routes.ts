// /usage: totals per metric between two UTC dates, optionally split by day, project or provider.
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { Usage, UsageQuery } from '../../modules/usage/usage.schema.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, Single } from '../../shared/schemas.js';
import { typed } from './route-helpers.js';

export async function usageRoutes(app: FastifyInstance, s: Services, _deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  r.get(
    '/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        description:
          'Usage between `from` and `to` (inclusive UTC dates). See docs/usage.md for the grouped shapes.',
        querystring: UsageQuery,
        response: { 200: Single(Usage), ...errorResponses(422) },
      },
    },
    async (req) => ({ data: await s.usage.report(actorOf(req), req.query) }),
  );
}
