// /phone-numbers and the dispatch test: thin — schema in, service call, schema out.
// Writes need `telephony`; reads and the dispatch test (it changes nothing) need `read`.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import {
  CreatePhoneNumber,
  DispatchTestBody,
  DispatchTestResult,
  PhoneNumber,
  PhoneNumberQuery,
  UpdatePhoneNumber,
} from '../../modules/phone-numbers/phone-numbers.schema.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function phoneNumberRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['phone-numbers'];

  r.get(
    '/phone-numbers',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Composite([Type.Object(PageQuery), PhoneNumberQuery]),
        response: { 200: Paginated(PhoneNumber), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.phoneNumbers.list(actorOf(req), page, {
        project_id: req.query.project_id,
      });
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/phone-numbers',
    {
      config: { scope: 'telephony' },
      schema: {
        tags,
        body: CreatePhoneNumber,
        response: { 201: Single(PhoneNumber), ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send({ data: await s.phoneNumbers.create(actorOf(req), req.body) }),
  );

  r.get(
    '/phone-numbers/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(PhoneNumber), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.phoneNumbers.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/phone-numbers/:id',
    {
      config: { scope: 'telephony' },
      schema: {
        tags,
        params: IdParams,
        body: UpdatePhoneNumber,
        response: { 200: Single(PhoneNumber), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.phoneNumbers.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/phone-numbers/:id',
    {
      config: { scope: 'telephony' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404) } },
    },
    async (req, reply) => {
      await s.phoneNumbers.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/phone-numbers/:id/dispatch-test',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        description: 'Which dispatch rule would answer a call from `caller` at `at` (see docs/dispatch.md)',
        params: IdParams,
        body: DispatchTestBody,
        response: { 200: Single(DispatchTestResult), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.phoneNumbers.dispatchTest(actorOf(req), req.params.id, req.body) }),
  );
}
