// /webhook-endpoints and /webhook-deliveries (docs/webhooks.md): thin — schema in, service call, schema out.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import {
  CreateWebhookEndpoint,
  DeliveryQuery,
  UpdateWebhookEndpoint,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../modules/webhook-endpoints/webhook-endpoints.schema.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed, type TypedRoutes } from './route-helpers.js';

export async function webhookEndpointRoutes(
  app: FastifyInstance,
  s: Services,
  deps: ServiceDeps,
): Promise<void> {
  const r = typed(app);
  endpointRoutes(r, s, deps);
  deliveryRoutes(r, s, deps);
}

const tags = ['webhooks'];

/** The endpoints: list, create, read, update, delete, rotate the signing secret. */
function endpointRoutes(r: TypedRoutes, s: Services, deps: ServiceDeps): void {
  r.get(
    '/webhook-endpoints',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object({ ...PageQuery, project_id: Type.Optional(Type.String()) }),
        response: { 200: Paginated(WebhookEndpoint), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.webhookEndpoints.list(
        actorOf(req),
        { project_id: req.query.project_id },
        page,
      );
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/webhook-endpoints',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        body: CreateWebhookEndpoint,
        response: { 201: Single(WebhookEndpointWithSecret), ...errorResponses(400, 422) },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ data: await s.webhookEndpoints.create(actorOf(req), req.body) }),
  );

  r.get(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(WebhookEndpoint), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.webhookEndpoints.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        body: UpdateWebhookEndpoint,
        response: { 200: Single(WebhookEndpoint), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.webhookEndpoints.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404) } },
    },
    async (req, reply) => {
      await s.webhookEndpoints.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: Single(WebhookEndpointWithSecret), ...errorResponses(404) },
      },
    },
    async (req) => ({ data: await s.webhookEndpoints.rotateSecret(actorOf(req), req.params.id) }),
  );
}

/** What was delivered to an endpoint, and sending a delivery again. */
function deliveryRoutes(r: TypedRoutes, s: Services, deps: ServiceDeps): void {
  r.get(
    '/webhook-endpoints/:id/deliveries',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object({ ...PageQuery, ...DeliveryQuery }),
        response: { 200: Paginated(WebhookDelivery), ...errorResponses(404, 422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.webhookEndpoints.listDeliveries(
        actorOf(req),
        req.params.id,
        { status: req.query.status },
        page,
      );
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/webhook-deliveries/:id/redeliver',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: Single(WebhookDelivery), ...errorResponses(404, 409) },
      },
    },
    async (req) => ({ data: await s.webhookEndpoints.redeliver(actorOf(req), req.params.id) }),
  );
}
