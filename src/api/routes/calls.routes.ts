// /calls
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Call, CallListQuery, CreateCall } from '../../modules/calls/calls.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPageJson } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, PageQuery, Paginated, Single } from '../../shared/schemas.js';
import { parseRange } from './http-range.js';
import { pageRequest, typed, type TypedRoutes } from './route-helpers.js';

export async function callRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);
  const tags = ['calls'];

  r.get(
    '/calls',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: Type.Object({ ...PageQuery, ...CallListQuery }),
        response: { 200: Paginated(Call), ...errorResponses(422) },
      },
    },
    async (req, reply) => {
      const page = pageParams(req.query);
      const { project_id, direction, status, from, to, parent_call_id } = req.query;
      const filter = { project_id, direction, status, from, to, parent_call_id };
      // Each call comes rendered by the store: the same bytes the Call schema would write.
      const { itemsJson, count, total } = await s.calls.list(actorOf(req), filter, page);
      // A string body is sent as it is; the reply is untyped for it (the schema types objects).
      return (reply as FastifyReply)
        .type('application/json; charset=utf-8')
        .send(renderPageJson(itemsJson, count, total, page, pageRequest(req, deps)));
    },
  );

  r.post(
    '/calls',
    {
      config: { scope: 'calls:write' },
      schema: { tags, body: CreateCall, response: { 201: Single(Call), ...errorResponses(400, 402, 422) } },
    },
    async (req, reply) => reply.code(201).send({ data: await s.calls.create(actorOf(req), req.body) }),
  );

  r.get(
    '/calls/:id',
    {
      config: { scope: 'read' },
      schema: { tags, params: IdParams, response: { 200: Single(Call), ...errorResponses(404) } },
    },
    async (req) => ({ data: await s.calls.get(actorOf(req), req.params.id) }),
  );

  recordingRoute(r, s, tags);

  // Beyond the spec: cancel an outbound call that has not been answered (CANCEL on the wire from
  // the node that dialled it, this one or, told over the live-event bus, another; cancelled /
  // caller_cancelled either way). A connected call is ended by its workflow or its parties, so
  // anything else is 409.
  r.delete(
    '/calls/:id',
    {
      config: { scope: 'calls:write' },
      schema: { tags, params: IdParams, response: { 204: Type.Null(), ...errorResponses(404, 409) } },
    },
    async (req, reply) => {
      await s.calls.cancel(actorOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}

// The call's recording: a 2-channel WAV (left the far party, right the service), with HTTP Range
// for seeking. A recording still being written is served as far as it is on disk.
function recordingRoute(r: TypedRoutes, s: Services, tags: string[]): void {
  r.get(
    '/calls/:id/recording',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: IdParams,
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'audio/wav' }),
          206: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'A byte range of it' }),
          ...errorResponses(404, 416),
        },
      },
    },
    async (req, reply) => {
      const body = await s.recordings.open(actorOf(req), req.params.id, (size) =>
        parseRange(req.headers.range, size),
      );
      const r = reply as FastifyReply;
      r.header('accept-ranges', 'bytes').type('audio/wav');
      if (body.range) {
        const { start, end } = body.range;
        r.code(206).header('content-range', `bytes ${start}-${end}/${body.size}`);
        r.header('content-length', end - start + 1);
      } else {
        r.header('content-length', body.size);
      }
      return r.send(body.stream);
    },
  );
}
