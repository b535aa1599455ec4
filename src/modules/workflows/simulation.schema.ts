// POST /workflows/{id}/simulate (beyond the spec): run a draft or a version without a phone.
import { Type, type Static } from '@sinclair/typebox';
import { Variables } from '../../shared/schemas.js';
import { VersionNumber } from './workflows.schema.js';

const Input = Type.Union([
  Type.Object({ text: Type.String({ maxLength: 10_000 }) }, { additionalProperties: false }),
  Type.Object({ dtmf: Type.String({ pattern: '^[0-9*#A-D]{1,64}$' }) }, { additionalProperties: false }),
]);

const LlmReply = Type.Object(
  {
    text: Type.Optional(Type.String()),
    tool_calls: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const SimulateBody = Type.Object(
  {
    version: Type.Optional(VersionNumber('A published version; default: the draft')),
    variables: Type.Optional(Variables),
    inputs: Type.Optional(Type.Array(Input, { maxItems: 500 })),
    stubs: Type.Optional(
      Type.Object(
        {
          webhook: Type.Optional(
            Type.Object({
              status: Type.Integer({ minimum: 100, maximum: 599 }),
              body: Type.Optional(Type.Unknown()),
              headers: Type.Optional(Type.Record(Type.String(), Type.String())),
            }),
          ),
          llm: Type.Optional(Type.Array(LlmReply, { maxItems: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    simulated: Type.Optional(
      Type.Object(
        {
          transfer: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failed')])),
          dial: Type.Optional(
            Type.Union(['answered', 'no_answer', 'busy', 'failed'].map((v) => Type.Literal(v))),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SimulateBody = Static<typeof SimulateBody>;

export const SimulationResultSchema = Type.Object({
  status: Type.String(),
  path: Type.Array(Type.String()),
  variables: Type.Record(Type.String(), Type.Unknown()),
  messages: Type.Array(
    Type.Object({
      role: Type.String(),
      content: Type.String(),
      agent_name: Type.Optional(Type.String()),
      latency_ms: Type.Optional(Type.Integer()),
    }),
  ),
  error: Type.Optional(Type.Unknown()),
});
