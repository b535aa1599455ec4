// /agents
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Agent, CreateAgent, UpdateAgent } from '../../modules/agents/agents.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function agentRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['agents'];

  r.get(
    '/agents',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object({ ...PageQuery, project_id: Type.Optional(Type.String()) }),
        response: { 200: Paginated(Agent), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.agents.list(actorOf(req), { project_id: req.query.project_id }, page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/agents',
    {
      config: { scope: 'write' },
      schema: { tags, body: CreateAgent, response: { 201: Single(Agent), ...errorResponses(400, 422) } },
    },
    async (req, reply) => reply.code(201).send({ data: await s.agents.create(actorOf(req), req.body) }),
  );

  r.get(
    '/agents/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(Agent), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.agents.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/agents/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        body: UpdateAgent,
        response: { 200: Single(Agent), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.agents.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/agents/:id',
    {
      config: { scope: 'write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404, 409) } },
    },
    async (req, reply) => {
      await s.agents.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
