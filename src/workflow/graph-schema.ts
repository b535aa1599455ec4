// JSON Schema of the workflow graph (schema_version 1), built with TypeBox: the envelope and one
// config schema per node type. Served at GET /api/v1/workflow-schema for editors; the TypeScript
// config types (Static) are what the engine's nodes read. Configs accept unknown extra keys
// because editors store their own things there; the semantic checks live in the validator.

import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { NODE_TYPES, SCHEMA_VERSION } from './graph.types.js';
import type { NodeType } from './graph.types.js';
import { TRANSFORM_OPERATIONS } from './transform.js';
import { TERMINATOR_PATTERN } from './terminator.js';

const open = { additionalProperties: true } as const;

/** A variable name as written in `save_to_variable`, `variables` keys and mappings. */
export const VARIABLE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
/** A handle name; agent exits are offered to the model as tools of the same name. */
export const HANDLE_NAME_PATTERN = '^[a-z][a-z0-9_]{0,63}$';

const VariableName = Type.String({ pattern: VARIABLE_NAME_PATTERN, description: 'variable name' });
const Handle = Type.String({ pattern: HANDLE_NAME_PATTERN });
const Template = (description: string) => Type.String({ description: `${description} (template)` });
const Seconds = (description: string) => Type.Number({ exclusiveMinimum: 0, description });

export const StartConfigSchema = Type.Object({}, open);

export const SpeakConfigSchema = Type.Object(
  {
    text: Template('what to say'),
    barge_in: Type.Optional(Type.Boolean({ default: true, description: 'caller speech or keys interrupt' })),
  },
  open,
);

export const AgentExitSchema = Type.Object(
  {
    handle: Handle,
    description: Type.Optional(Type.String({ description: 'tells the model when to take this exit' })),
  },
  open,
);

export const AgentOutputSchema = Type.Object(
  { variable: VariableName, description: Type.String({ description: 'what the model should put here' }) },
  open,
);

export const AgentConfigSchema = Type.Object(
  {
    agent_id: Type.String({ minLength: 1, description: 'an agent of the same project' }),
    instructions: Type.Optional(Template("this step's task, added to the agent's system prompt")),
    greeting: Type.Optional(Template("said on entering the node; defaults to the agent's greeting")),
    history: Type.Optional(
      Type.Union([Type.Literal('append'), Type.Literal('reset')], { default: 'append' }),
    ),
    exits: Type.Optional(Type.Array(Type.Union([AgentExitSchema, Handle]))),
    outputs: Type.Optional(Type.Array(AgentOutputSchema)),
    max_turns: Type.Optional(
      Type.Integer({ minimum: 1, description: 'user turns before leaving by default' }),
    ),
    max_tool_rounds: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5 })),
    silence_timeout_seconds: Type.Optional(Seconds('no user turn in time leaves by default')),
  },
  open,
);

export const DtmfConfigSchema = Type.Object(
  {
    prompt: Type.Optional(Template('spoken prompt')),
    num_digits: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    terminator: Type.Optional(Type.String({ pattern: TERMINATOR_PATTERN, default: '#' })),
    timeout_seconds: Type.Optional(Seconds('silence after the prompt before `timeout`; default 5')),
    save_to_variable: VariableName,
    speech: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'on voice lines, spoken digits and answers count too',
      }),
    ),
  },
  open,
);

export const ConditionBranchSchema = Type.Object(
  { handle: Handle, expression: Type.String({ description: 'expression language, see docs' }) },
  open,
);

export const ConditionConfigSchema = Type.Object({ branches: Type.Array(ConditionBranchSchema) }, open);

const VariableValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

export const SetVariablesConfigSchema = Type.Object(
  {
    variables: Type.Record(Type.String({ pattern: VARIABLE_NAME_PATTERN }), VariableValue, {
      additionalProperties: false,
    }),
  },
  open,
);

export const TransformConfigSchema = Type.Object(
  {
    operation: Type.Union(TRANSFORM_OPERATIONS.map((op) => Type.Literal(op))),
    input: Template('the text to transform'),
    save_to_variable: VariableName,
  },
  open,
);

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const WebhookAuthSchema = Type.Union([
  Type.Object({ type: Type.Literal('none') }, open),
  ...(['bearer', 'hmac'] as const).map((type) =>
    Type.Object(
      {
        type: Type.Literal(type),
        secret_variable: Type.Optional(VariableName),
        token: Type.Optional(Template('used when secret_variable is absent')),
      },
      open,
    ),
  ),
]);

export const WebhookConfigSchema = Type.Object(
  {
    method: Type.Optional(
      Type.Union(
        WEBHOOK_METHODS.map((m) => Type.Literal(m)),
        { default: 'POST' },
      ),
    ),
    url: Template('https URL'),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(
      Type.Union([
        Template('request body, sent as is'),
        Type.Object(
          {},
          { additionalProperties: true, description: 'sent as JSON; string leaves are templates' },
        ),
        Type.Array(Type.Unknown()),
      ]),
    ),
    timeout_seconds: Type.Optional(Seconds('default 10')),
    auth: Type.Optional(WebhookAuthSchema),
    response_mapping: Type.Optional(
      Type.Record(
        Type.String({ pattern: VARIABLE_NAME_PATTERN }),
        Type.String({
          pattern: '^\\$(\\.[^.\\s[\\]]+|\\[[0-9]+\\])*$',
          description: 'JSON path: $, $.a.b, $.items[0]',
        }),
        {
          additionalProperties: false,
        },
      ),
    ),
    save_response_to: Type.Optional(VariableName),
  },
  open,
);

export const DialConfigSchema = Type.Object(
  {
    to: Template('tel:<E164>, sip:user@host or an E.164 number'),
    from: Type.Optional(Template('a registered number; default: the number of the current call')),
    ring_timeout_seconds: Type.Optional(Seconds('default 30')),
    save_call_id_to: Type.Optional(VariableName),
    machine_detection: Type.Optional(
      Type.Boolean({
        description:
          'Answering-machine detection on the answered leg before it is bridged (at most 4 s): a machine is hung up and the node leaves by failed',
      }),
    ),
    save_answered_by_to: Type.Optional(VariableName),
  },
  open,
);

export const TransferToHumanConfigSchema = Type.Object(
  {
    destination: Template('tel:<E164> or sip:user@host'),
    announcement: Type.Optional(Template('played to the human before bridging')),
    ring_timeout_seconds: Type.Optional(Seconds('default 30')),
    machine_detection: Type.Optional(
      Type.Boolean({
        description:
          'Answering-machine detection on the answered leg before the announcement (at most 4 s): a machine is hung up and the node leaves by failed (transfer_failure_reason machine)',
      }),
    ),
  },
  open,
);

export const TransferCallConfigSchema = Type.Object(
  { destination: Template('tel:<E164> or sip:user@host') },
  open,
);

export const EndConfigSchema = Type.Object({}, open);
export const HangupConfigSchema = Type.Object({}, open);

export const nodeConfigSchemas = {
  start: StartConfigSchema,
  speak: SpeakConfigSchema,
  agent: AgentConfigSchema,
  dtmf: DtmfConfigSchema,
  condition: ConditionConfigSchema,
  set_variables: SetVariablesConfigSchema,
  transform: TransformConfigSchema,
  webhook: WebhookConfigSchema,
  dial: DialConfigSchema,
  transfer_to_human: TransferToHumanConfigSchema,
  transfer_call: TransferCallConfigSchema,
  end: EndConfigSchema,
  hangup: HangupConfigSchema,
} as const satisfies Record<NodeType, TSchema>;

export type StartConfig = Static<typeof StartConfigSchema>;
export type SpeakConfig = Static<typeof SpeakConfigSchema>;
export type AgentConfig = Static<typeof AgentConfigSchema>;
export type AgentExit = Static<typeof AgentExitSchema>;
export type AgentOutput = Static<typeof AgentOutputSchema>;
export type DtmfConfig = Static<typeof DtmfConfigSchema>;
export type ConditionConfig = Static<typeof ConditionConfigSchema>;
export type ConditionBranch = Static<typeof ConditionBranchSchema>;
export type SetVariablesConfig = Static<typeof SetVariablesConfigSchema>;
export type TransformConfig = Static<typeof TransformConfigSchema>;
export type WebhookConfig = Static<typeof WebhookConfigSchema>;
export type WebhookAuth = Static<typeof WebhookAuthSchema>;
export type DialConfig = Static<typeof DialConfigSchema>;
export type TransferToHumanConfig = Static<typeof TransferToHumanConfigSchema>;
export type TransferCallConfig = Static<typeof TransferCallConfigSchema>;
export type EndConfig = Static<typeof EndConfigSchema>;
export type HangupConfig = Static<typeof HangupConfigSchema>;

/** Node type to its config type, for `run(ctx, config: NodeConfigOf<'dtmf'>, signal)`. */
export type NodeConfigOf<T extends NodeType> = Static<(typeof nodeConfigSchemas)[T]>;

/** TypeBox adds symbol keys; a JSON round trip leaves the plain JSON Schema document. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const PositionSchema = Type.Object({ x: Type.Number(), y: Type.Number() }, open);
const EdgeSchema = Type.Object(
  {
    source: Type.String({ minLength: 1 }),
    target: Type.String({ minLength: 1 }),
    source_handle: Type.Optional(Type.String({ minLength: 1, description: 'absent: the default handle' })),
  },
  open,
);

/** True when an empty config fails the type's config schema (some key is required). */
function configNeedsKeys(type: NodeType): boolean {
  const required = (nodeConfigSchemas[type] as { required?: unknown[] }).required;
  return Array.isArray(required) && required.length > 0;
}

function nodeSchema(type: NodeType): Record<string, unknown> {
  return {
    type: 'object',
    // The validator reads a missing config as {} (docs/workflow-nodes.md), so `config` may be left
    // out exactly where {} is a valid config, and the schema and the server agree on when a node
    // may come without one.
    required: configNeedsKeys(type) ? ['id', 'type', 'config'] : ['id', 'type'],
    properties: {
      id: { type: 'string', minLength: 1 },
      type: { const: type },
      config: { $ref: `#/$defs/${type}_config`, description: 'absent: {}' },
      position: { $ref: '#/$defs/position' },
    },
  };
}

/** The whole graph document as plain JSON Schema (draft 2020-12); nodes are a `oneOf` on `type`. */
export const workflowGraphJsonSchema: Readonly<Record<string, unknown>> = Object.freeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://switchboard.local/schemas/workflow-graph/v1.json',
  title: `Switchboard workflow graph (schema_version ${SCHEMA_VERSION})`,
  type: 'object',
  required: ['nodes', 'edges'],
  properties: {
    nodes: { type: 'array', items: { $ref: '#/$defs/node' } },
    edges: { type: 'array', items: { $ref: '#/$defs/edge' } },
    inputs: { type: 'array', items: { type: 'string', pattern: VARIABLE_NAME_PATTERN } },
  },
  $defs: {
    node: { oneOf: NODE_TYPES.map((type) => ({ $ref: `#/$defs/${type}_node` })) },
    edge: plain(EdgeSchema),
    position: plain(PositionSchema),
    ...Object.fromEntries(NODE_TYPES.map((type) => [`${type}_node`, nodeSchema(type)])),
    ...Object.fromEntries(NODE_TYPES.map((type) => [`${type}_config`, plain(nodeConfigSchemas[type])])),
  },
});
