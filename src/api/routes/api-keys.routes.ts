// /api-keys
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiKey, CreateApiKey, CreatedApiKey } from '../../modules/api-keys/api-keys.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function apiKeyRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['api-keys'];

  r.get(
    '/api-keys',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(ApiKey), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.apiKeys.list(actorOf(req), page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/api-keys',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        body: CreateApiKey,
        response: { 201: Single(CreatedApiKey), ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send({ data: await s.apiKeys.create(actorOf(req), req.body) }),
  );

  r.delete(
    '/api-keys/:id',
    {
      config: { scope: 'write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404) } },
    },
    async (req, reply) => {
      await s.apiKeys.revoke(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
