// /sessions
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import {
  CreateSession,
  MintedSession,
  Session,
  SessionListQuery,
} from '../../modules/sessions/sessions.schema.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function sessionRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['sessions'];

  r.get(
    '/sessions',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object({ ...PageQuery, ...SessionListQuery }),
        response: { 200: Paginated(Session), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { project_id, channel, status } = req.query;
      const { items, total } = await s.sessions.list(actorOf(req), { project_id, channel, status }, page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/sessions',
    {
      config: { scope: 'calls:write' },
      schema: {
        tags,
        body: CreateSession,
        response: { 201: Single(MintedSession), ...errorResponses(400, 402, 422) },
      },
    },
    async (req, reply) => reply.code(201).send({ data: await s.sessions.create(actorOf(req), req.body) }),
  );

  r.get(
    '/sessions/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(Session), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.sessions.get(actorOf(req), req.params.id) }),
  );

  r.delete(
    '/sessions/:id',
    {
      config: { scope: 'calls:write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404) } },
    },
    async (req, reply) => {
      await s.sessions.end(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
