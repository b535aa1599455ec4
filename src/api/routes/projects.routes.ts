// /projects: thin — schema in, service call, schema out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import { CreateProject, Project, UpdateProject } from '../../modules/projects/projects.schema.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function projectRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['projects'];

  r.get(
    '/projects',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(Project), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.projects.list(actorOf(req), page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/projects',
    {
      config: { scope: 'write' },
      schema: { tags, body: CreateProject, response: { 201: Single(Project), ...errorResponses(400, 422) } },
    },
    async (req, reply) => reply.code(201).send({ data: await s.projects.create(actorOf(req), req.body) }),
  );

  r.get(
    '/projects/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(Project), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.projects.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/projects/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        body: UpdateProject,
        response: { 200: Single(Project), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.projects.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/projects/:id',
    {
      config: { scope: 'write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404, 409) } },
    },
    async (req, reply) => {
      await s.projects.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
