// /plan (beyond the spec): the workspace's monthly allowances, this period's use and what is left,
// for the dashboard's Usage page. Read-only, scope usage:read like /usage.
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import { Plan, readPlan } from '../../modules/usage/plan.service.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, Single } from '../../shared/schemas.js';
import { typed } from './route-helpers.js';

export async function planRoutes(app: FastifyInstance, deps: ServiceDeps): Promise<void> {
  typed(app).get(
    '/plan',
    {
      config: { scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        description:
          'Monthly allowances (null: unlimited), used this period and remaining. See docs/usage.md.',
        response: { 200: Single(Plan), ...errorResponses() },
      },
    },
    async (req) => ({ data: await readPlan(deps, actorOf(req)) }),
  );
}
