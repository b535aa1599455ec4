// Agent fields of the API (docs/api.md). Required on create: project_id, name, system_prompt, llm_provider,
// llm_model; everything else has a documented default.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';

export const LLM_PROVIDERS = ['llm_vendor_1', 'llm_vendor_2', 'llm_vendor_3', 'llm_vendor_4'] as const;
export const STT_PROVIDERS = ['stt_vendor_1'] as const;
export const TTS_PROVIDERS = ['tts_vendor_1'] as const;

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** A capability the model may call mid-conversation; with `url` the engine calls it as a webhook. */
export const AgentTool = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    description: Type.String({ maxLength: 2000 }),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    url: Type.Optional(Type.String({ maxLength: 2000 })),
    method: Type.Optional(literals(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])),
  },
  { additionalProperties: true },
);

const IdList = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 });

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  system_prompt: Type.String({ maxLength: 100_000 }),
  llm_provider: literals(LLM_PROVIDERS),
  llm_model: Type.String({ minLength: 1, maxLength: 200 }),
  temperature: Type.Number({ minimum: 0, maximum: 2 }),
  stt_provider: literals(STT_PROVIDERS),
  stt_language: Type.String({ minLength: 2, maxLength: 35 }),
  tts_provider: literals(TTS_PROVIDERS),
  tts_voice: Nullable(Type.String({ maxLength: 200 })),
  greeting: Nullable(Type.String({ maxLength: 10_000 })),
  tools: Type.Array(AgentTool, { maxItems: 64 }),
  knowledge_base_ids: IdList,
  mcp_server_ids: IdList,
};

export const CreateAgent = Type.Object(
  {
    project_id: Type.String(),
    name: fields.name,
    system_prompt: fields.system_prompt,
    llm_provider: fields.llm_provider,
    llm_model: fields.llm_model,
    temperature: Type.Optional(fields.temperature),
    stt_provider: Type.Optional(fields.stt_provider),
    stt_language: Type.Optional(fields.stt_language),
    tts_provider: Type.Optional(fields.tts_provider),
    tts_voice: Type.Optional(fields.tts_voice),
    greeting: Type.Optional(fields.greeting),
    tools: Type.Optional(fields.tools),
    knowledge_base_ids: Type.Optional(fields.knowledge_base_ids),
    mcp_server_ids: Type.Optional(fields.mcp_server_ids),
  },
  { additionalProperties: false },
);
export type CreateAgent = Static<typeof CreateAgent>;

export const UpdateAgent = Type.Partial(Type.Omit(CreateAgent, ['project_id']), {
  additionalProperties: false,
});
export type UpdateAgent = Static<typeof UpdateAgent>;

export const Agent = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    ...fields,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Agent' },
);
export type Agent = Static<typeof Agent>;

export const AgentListQuery = Type.Object({
  project_id: Type.Optional(Type.String()),
});

export const AGENT_DEFAULTS = {
  temperature: 0.7,
  stt_provider: 'stt_vendor_1',
  stt_language: 'en-US',
  tts_provider: 'tts_vendor_1',
  tts_voice: null,
  greeting: null,
} as const;
