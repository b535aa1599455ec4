// Schema-driven fuzzing of every route in our own OpenAPI document, on every store: requests with
// valid and broken bodies, query strings and path ids (own, foreign, unknown and nonsense), with
// and without a key. Every answer must be a status the document lists for that route, in the
// spec's envelope ({message, errors?}) when it is not a success, a 2xx body must match the route's
// response schema, and the service must be healthy afterwards. The seed and the count are fixed,
// so a failure reproduces; FUZZ_RUNS raises the count for a longer local run.
import fc from 'fast-check';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow, registerNumber } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';
import {
  brokenValue,
  nastyString,
  validValue,
  type Hints,
  type JsonSchema,
} from '../support/schema-arbitrary.js';

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = 20261126;

interface Parameter {
  in: 'path' | 'query';
  name: string;
  schema: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  responses: Record<string, { content?: { 'application/json'?: { schema: JsonSchema } } }>;
}

interface Seeded {
  own: Map<string, string[]>;
  foreign: Map<string, string[]>;
}

/** The resource a path's `{id}` names, by the path segment before it (`/agents/{id}` → agent). */
const idFieldOf = (path: string): string => {
  const segment = /\/([a-z-]+)\/\{id\}/.exec(path)?.[1] ?? '';
  const singular: Record<string, string> = {
    projects: 'project_id',
    agents: 'agent_id',
    workflows: 'workflow_id',
    sessions: 'session_id',
    calls: 'call_id',
    'phone-numbers': 'phone_number_id',
    'sip-trunks': 'sip_trunk_id',
    conversations: 'conversation_id',
    'api-keys': 'api_key_id',
    'webhook-endpoints': 'webhook_endpoint_id',
    'webhook-deliveries': 'webhook_delivery_id',
  };
  return singular[segment] ?? 'id';
};

function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      Omit<Operation, 'method' | 'path'> & {
        requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
      }
    >
  >;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Parameter[],
        body: op.requestBody?.content['application/json']?.schema,
        responses: op.responses,
      });
    }
  }
  return ops;
}

async function seed(
  t: TestApi,
  key: string,
  workspaceId: string,
  number: string,
): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  const add = (field: string, id: string | undefined) => {
    if (id) ids.set(field, [...(ids.get(field) ?? []), id]);
  };
  const idOf = (r: { data: unknown }) => (r.data as { data?: { id?: string } } | undefined)?.data?.id;
  const projectId = await createProject(t, key);
  add('project_id', projectId);
  const workflowId = await createPublishedWorkflow(t, projectId, key);
  add('workflow_id', workflowId);
  const { trunkId, numberId } = await registerNumber(t, workspaceId, projectId, number);
  await t.call('PATCH', `/api/v1/phone-numbers/${numberId}`, {
    key,
    body: { dispatch_rules: [{ workflow_id: workflowId }] },
  });
  add('sip_trunk_id', trunkId);
  add('phone_number_id', numberId);
  add(
    'agent_id',
    idOf(
      await t.call('POST', '/api/v1/agents', {
        key,
        body: {
          project_id: projectId,
          name: 'Ada',
          system_prompt: 'Help.',
          llm_provider: 'llm_vendor_1',
          llm_model: 'm',
        },
      }),
    ),
  );
  const endpoint = await t.call('POST', '/api/v1/webhook-endpoints', {
    key,
    body: {
      project_id: projectId,
      url: 'https://hooks.example.com/in',
      events: ['session.ended', 'call.ended'],
    },
  });
  add('webhook_endpoint_id', idOf(endpoint));
  const session = idOf(
    await t.call('POST', '/api/v1/sessions', {
      key,
      body: { project_id: projectId, workflow_id: workflowId },
    }),
  );
  add('session_id', session);
  await t.call('DELETE', `/api/v1/sessions/${session}`, { key });
  add(
    'call_id',
    idOf(
      await t.call('POST', '/api/v1/calls', {
        key,
        body: { project_id: projectId, workflow_id: workflowId, from: number, to: '+14155550199' },
      }),
    ),
  );
  add(
    'api_key_id',
    idOf(await t.call('POST', '/api/v1/api-keys', { key, body: { name: 'spare', scopes: ['read'] } })),
  );
  const conversations = (await t.call('GET', '/api/v1/conversations', { key })).data as {
    data: Array<{ id: string }>;
  };
  for (const c of conversations.data) add('conversation_id', c.id);
  const deliveries = (await t.call('GET', `/api/v1/webhook-endpoints/${idOf(endpoint)}/deliveries`, { key }))
    .data as {
    data: Array<{ id: string }>;
  };
  for (const d of deliveries.data) add('webhook_delivery_id', d.id);
  return ids;
}

/** Percent-encodes a path segment; an unpaired surrogate goes out as its raw (invalid) UTF-8 bytes. */
const encodeSegment = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80';
  }
};

const isEnvelope = (body: unknown): boolean => {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const { message, errors, ...rest } = body as Record<string, unknown>;
  if (typeof message !== 'string' || message.length === 0 || Object.keys(rest).length > 0) return false;
  if (errors === undefined) return true;
  if (!errors || typeof errors !== 'object' || Array.isArray(errors)) return false;
  return Object.values(errors).every(
    (list) => Array.isArray(list) && list.every((m) => typeof m === 'string'),
  );
};

for (const kind of storeKinds()) {
  describe(`API fuzzing over the OpenAPI document (${kind.name})`, () => {
    let t: TestApi;
    let ops: Operation[];
    let seeded: Seeded;
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(ajv);

    beforeAll(async () => {
      t = await startTestApi(kind, {
        overrides: { webhookResolver: async () => [{ address: '203.0.113.9', family: 4 }] },
      });
      const other = await t.newWorkspace('other');
      seeded = {
        own: await seed(t, t.key, t.workspaceId, '+14155550100'),
        foreign: await seed(t, other.key, other.workspaceId, '+14155550101'),
      };
      const doc = (await t.call('GET', '/api/v1/openapi.json')).data as Parameters<typeof operationsOf>[0];
      ops = operationsOf(doc);
      // Response schemas point into the document's components: validate through the document.
      ajv.addSchema(doc as object, 'openapi');
    });
    afterAll(async () => t?.close());

    const hints = (): Hints => ({
      idsFor: (field) => [...(seeded.own.get(field) ?? []), ...(seeded.foreign.get(field) ?? [])],
    });

    it('covers every route of the document', () => {
      expect(ops.length).toBeGreaterThan(50);
    });

    it('answers every request with a documented status, in the envelope, and stays healthy', async () => {
      const failures: string[] = [];
      for (const op of ops) {
        const idField = idFieldOf(op.path);
        const pathId = fc.oneof(
          fc.constantFrom(...(seeded.own.get(idField) ?? ['00000000-0000-7000-8000-000000000000'])),
          fc.constantFrom(...(seeded.foreign.get(idField) ?? ['00000000-0000-7000-8000-000000000001'])),
          fc.uuid(),
          nastyString.filter((s) => s.length > 0 && s !== ' ' && !s.includes('/')),
          fc.integer({ min: -5, max: 5 }).map(String),
        );
        const query = fc.dictionary(
          fc.constantFrom(
            ...op.parameters.filter((p) => p.in === 'query').map((p) => p.name),
            'page',
            'junk',
          ),
          fc.oneof(nastyString, fc.string({ maxLength: 10 }), fc.integer().map(String)),
          { maxKeys: 3 },
        );
        const body = op.body
          ? fc.oneof(
              { weight: 3, arbitrary: validValue(op.body, hints()).map((v) => JSON.stringify(v)) },
              { weight: 3, arbitrary: brokenValue(op.body, hints()).map((v) => JSON.stringify(v)) },
              { weight: 1, arbitrary: fc.constantFrom('{', '', 'null', '[]', '"x"', '{"a":1}{') },
            )
          : fc.constant(undefined);
        const auth = fc.constantFrom('key', 'key', 'key', 'key', 'none', 'bogus');
        const documented = new Set(Object.keys(op.responses).map(Number));

        await fc.assert(
          fc.asyncProperty(pathId, pathId, query, body, auth, async (id, version, q, payload, who) => {
            const path = op.path
              .replace('{id}', encodeSegment(id))
              .replace('{version}', encodeSegment(version.length < 12 ? version : '1'));
            const search = new URLSearchParams(q as Record<string, string>).toString();
            const headers: Record<string, string> = {};
            if (who === 'key') headers.authorization = `Bearer ${t.key}`;
            if (who === 'bogus') headers.authorization = 'Bearer pk_live_nothing_like_a_key';
            if (payload !== undefined) headers['content-type'] = 'application/json';
            const res = await t.app.inject({
              method: op.method as 'GET',
              url: search ? `${path}?${search}` : path,
              headers,
              payload,
            });
            const where = `${op.method} ${path}${search ? `?${search}` : ''} ${payload?.slice(0, 200) ?? ''}`;
            let parsed: unknown;
            try {
              parsed = res.body ? JSON.parse(res.body) : undefined;
            } catch {
              parsed = res.body;
            }
            if (!documented.has(res.statusCode)) {
              failures.push(`${res.statusCode} not documented: ${where} → ${res.body.slice(0, 200)}`);
              return;
            }
            if (res.statusCode >= 300 && !isEnvelope(parsed)) {
              failures.push(`${res.statusCode} outside the envelope: ${where} → ${res.body.slice(0, 200)}`);
              return;
            }
            const schema = op.responses[res.statusCode]?.content?.['application/json']?.schema;
            const pointer = [
              'paths',
              op.path,
              op.method.toLowerCase(),
              'responses',
              String(res.statusCode),
              'content',
              'application/json',
              'schema',
            ]
              .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
              .join('/');
            if (res.statusCode < 300 && schema && !ajv.validate({ $ref: `openapi#/${pointer}` }, parsed)) {
              failures.push(`${res.statusCode} body off its schema: ${where} → ${ajv.errorsText()}`);
            }
          }),
          { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
        );
      }
      expect(failures.slice(0, 20)).toEqual([]);

      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      const list = await t.call('GET', '/api/v1/projects');
      expect(list.statusCode).toBe(200);
    }, 300_000);
  });
}
