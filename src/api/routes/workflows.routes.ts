// /workflows: drafts, validation, publishing, versions.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import {
  CreateWorkflow,
  PublishBody,
  Published,
  UpdateWorkflow,
  ValidationResultSchema,
  VersionDetail,
  VersionNumber,
  VersionItem,
  Workflow,
} from '../../modules/workflows/workflows.schema.js';
import { simulateWorkflow } from '../../modules/workflows/simulation.service.js';
import { SimulateBody, SimulationResultSchema } from '../../modules/workflows/simulation.schema.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed, type TypedRoutes } from './route-helpers.js';

export async function workflowRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  draftRoutes(r, s, deps);
  versionRoutes(r, s, deps);
}

const tags = ['workflows'];

/** The workflow itself: list, create, read, update (its draft), delete. */
function draftRoutes(r: TypedRoutes, s: Services, deps: ServiceDeps): void {
  r.get(
    '/workflows',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object({ ...PageQuery, project_id: Type.Optional(Type.String()) }),
        response: { 200: Paginated(Workflow), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.workflows.list(
        actorOf(req),
        { project_id: req.query.project_id },
        page,
      );
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.post(
    '/workflows',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        body: CreateWorkflow,
        response: { 201: Single(Workflow), ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send({ data: await s.workflows.create(actorOf(req), req.body) }),
  );

  r.get(
    '/workflows/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(Workflow), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.workflows.get(actorOf(req), req.params.id) }),
  );

  r.patch(
    '/workflows/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        body: UpdateWorkflow,
        response: { 200: Single(Workflow), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.workflows.update(actorOf(req), req.params.id, req.body) }),
  );

  r.delete(
    '/workflows/:id',
    {
      config: { scope: 'write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404, 409) } },
    },
    async (req, reply) => {
      await s.workflows.delete(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}

/** What is made of a draft: validation, published versions, a simulated run. */
function versionRoutes(r: TypedRoutes, s: Services, deps: ServiceDeps): void {
  r.post(
    '/workflows/:id/validate',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: Single(ValidationResultSchema), ...errorResponses(404) },
      },
    },
    async (req) => ({ data: await s.workflows.validate(actorOf(req), req.params.id) }),
  );

  r.post(
    '/workflows/:id/publish',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        params: IdParams,
        body: Type.Optional(PublishBody),
        response: { 200: Single(Published), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({ data: await s.workflows.publish(actorOf(req), req.params.id, req.body?.version) }),
  );

  r.get(
    '/workflows/:id/versions',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Paginated(VersionItem), ...errorResponses(404, 422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.workflows.versions(actorOf(req), req.params.id, page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.get(
    '/workflows/:id/versions/:version',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: Type.Object({ id: Type.String(), version: VersionNumber() }),
        response: { 200: Single(VersionDetail), ...errorResponses(404) },
      },
    },
    async (req) => ({ data: await s.workflows.version(actorOf(req), req.params.id, req.params.version) }),
  );

  r.post(
    '/workflows/:id/simulate',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Run the draft (or a version) deterministically on the text channel (beyond the spec)',
        params: IdParams,
        body: SimulateBody,
        response: { 200: Single(SimulationResultSchema), ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => ({
      data: await simulateWorkflow(deps, s.workflows, actorOf(req), req.params.id, req.body),
    }),
  );
}
