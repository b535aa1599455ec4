// An agent as its form holds it (text as typed) and as the API takes it (spec 2.2's fields).
import type { Agent } from '../../api/types';

export const LLM_PROVIDERS = [
  { value: 'llm_vendor_1', label: 'llm_vendor_1 (OpenAI protocol)' },
  { value: 'llm_vendor_2', label: 'llm_vendor_2 (Anthropic protocol)' },
  { value: 'llm_vendor_3', label: 'llm_vendor_3 (Gemini protocol)' },
  { value: 'llm_vendor_4', label: 'llm_vendor_4 (router)' },
];

/** Suggestions only: any model the vendor serves is accepted. */
export const MODEL_SUGGESTIONS: Record<string, string[]> = {
  llm_vendor_1: ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'gpt-4.1'],
  llm_vendor_2: ['claude-3-5-haiku-latest', 'claude-sonnet-4-0'],
  llm_vendor_3: ['gemini-2.0-flash', 'gemini-2.5-flash', 'gemini-2.5-pro'],
  llm_vendor_4: ['openai/gpt-4o-mini', 'anthropic/claude-3.5-haiku', 'google/gemini-2.0-flash-001'],
};

export interface AgentDraft {
  project_id: string;
  name: string;
  system_prompt: string;
  llm_provider: string;
  llm_model: string;
  temperature: string;
  stt_provider: string;
  stt_language: string;
  tts_provider: string;
  tts_voice: string;
  greeting: string;
  tools: string;
  knowledge_base_ids: string;
  mcp_server_ids: string;
}

export const EMPTY_AGENT: AgentDraft = {
  project_id: '',
  name: '',
  system_prompt: '',
  llm_provider: 'llm_vendor_1',
  llm_model: '',
  temperature: '0.7',
  stt_provider: 'stt_vendor_1',
  stt_language: 'en-US',
  tts_provider: 'tts_vendor_1',
  tts_voice: '',
  greeting: '',
  tools: '[]',
  knowledge_base_ids: '',
  mcp_server_ids: '',
};

export function draftOfAgent(a: Agent): AgentDraft {
  return {
    project_id: a.project_id,
    name: a.name,
    system_prompt: a.system_prompt,
    llm_provider: a.llm_provider,
    llm_model: a.llm_model,
    temperature: String(a.temperature),
    stt_provider: a.stt_provider,
    stt_language: a.stt_language,
    tts_provider: a.tts_provider,
    tts_voice: a.tts_voice ?? '',
    greeting: a.greeting ?? '',
    tools: JSON.stringify(a.tools, null, 2),
    knowledge_base_ids: a.knowledge_base_ids.join(', '),
    mcp_server_ids: a.mcp_server_ids.join(', '),
  };
}

function ids(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Thrown for a tools list that is not JSON, before anything is sent. */
export class ToolsJsonError extends Error {}

export function bodyOfAgent(d: AgentDraft, creating: boolean): Record<string, unknown> {
  let tools: unknown;
  try {
    tools = JSON.parse(d.tools.trim() || '[]');
  } catch {
    throw new ToolsJsonError('Tools must be a JSON array, e.g. [{"name": "lookup", "description": "…"}].');
  }
  const temperature = Number(d.temperature);
  return {
    ...(creating ? { project_id: d.project_id } : {}),
    name: d.name,
    system_prompt: d.system_prompt,
    llm_provider: d.llm_provider,
    llm_model: d.llm_model.trim(),
    temperature:
      d.temperature.trim() === '' ? undefined : Number.isFinite(temperature) ? temperature : d.temperature,
    stt_provider: d.stt_provider,
    stt_language: d.stt_language.trim(),
    tts_provider: d.tts_provider,
    tts_voice: d.tts_voice.trim() || null,
    greeting: d.greeting.trim() || null,
    tools,
    knowledge_base_ids: ids(d.knowledge_base_ids),
    mcp_server_ids: ids(d.mcp_server_ids),
  };
}
