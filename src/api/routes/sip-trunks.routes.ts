// /sip-trunks: thin — schema in, service call, schema out. Writes need `telephony`, reads `read`.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { CreateSipTrunk, SipTrunk, UpdateSipTrunk } from '../../modules/sip-trunks/sip-trunks.schema.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function sipTrunkRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['sip-trunks'];

  r.get(
    '/sip-trunks',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(SipTrunk), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.sipTrunks.list(actorOf(req), page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/sip-trunks',
    {
      config: { scope: 'telephony' },
      schema: {
        tags,
        body: CreateSipTrunk,
        response: { 201: Single(SipTrunk), ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send({ data: await s.sipTrunks.create(actorOf(req), req.body) }),
  );

  r.get(
    '/sip-trunks/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(SipTrunk), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.sipTrunks.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/sip-trunks/:id',
    {
      config: { scope: 'telephony' },
      schema: {
        tags,
        params: IdParams,
        body: UpdateSipTrunk,
        response: { 200: Single(SipTrunk), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.sipTrunks.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/sip-trunks/:id',
    {
      config: { scope: 'telephony' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404, 409) } },
    },
    async (req, reply) => {
      await s.sipTrunks.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
