// Row types of every table, as Kysely sees them. Both dialects store the same shapes:
// ids and timestamps as text (ISO 8601 UTC with milliseconds, so they sort as text),
// JSON as text, booleans as integers. Each part of the service adds its tables here.
import type { WebhookTables } from './webhook-tables.js';

export interface WorkspaceTable {
  id: string;
  name: string;
  owner_email: string | null;
  sip_label: string;
  plan_voice_minutes: number | null;
  plan_sessions: number | null;
  plan_calls: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: string;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export interface ProjectTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  system_prompt: string;
  llm_provider: string;
  llm_model: string;
  temperature: number;
  stt_provider: string;
  stt_language: string;
  tts_provider: string;
  tts_voice: string | null;
  greeting: string | null;
  tools: string;
  knowledge_base_ids: string;
  mcp_server_ids: string;
  created_at: string;
  updated_at: string;
}

export interface WorkflowTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  graph: string;
  published_version: number | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkflowVersionTable {
  workflow_id: string;
  version: number;
  workspace_id: string;
  graph: string;
  schema_version: number;
  published_at: string;
  published_by: string;
}

export interface SessionTable {
  id: string;
  workspace_id: string;
  project_id: string;
  workflow_id: string;
  workflow_version: number;
  channel: string;
  status: string;
  variables: string;
  metadata: string;
  call_id: string | null;
  end_reason: string | null;
  started_at: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CallTable {
  id: string;
  workspace_id: string;
  project_id: string;
  workflow_id: string | null;
  workflow_version: number | null;
  session_id: string | null;
  phone_number_id: string | null;
  direction: string;
  status: string;
  from_number: string;
  to_number: string;
  duration_seconds: number | null;
  hangup_reason: string | null;
  metadata: string;
  variables: string;
  sip_call_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
  /**
   * SWITCHBOARD_NODE_ID of the node that admitted or dialled the call (migration 006), whose
   * sweeps alone may end it; null for calls from before that migration, which every node sweeps.
   */
  node_id: string | null;
  // Migration 009 (docs/calls.md). Optional here because the store has defaults for them (0, null)
  // and most writers of a call never name them.
  /** 1: record the call; its recording's API address once one exists, or why it has none. */
  record?: number;
  recording_url?: string | null;
  recording_error?: string | null;
  /** 1: answering-machine detection on answer; 1: on a machine, wait for the voicemail beep. */
  machine_detection?: number;
  wait_for_beep?: number;
  /** human, machine, unknown; null when not detected. */
  answered_by?: string | null;
  /** Migration 011: the call a workflow dialled this leg from (dial node, warm transfer); else null. */
  parent_call_id?: string | null;
}

export interface PhoneNumberTable {
  id: string;
  workspace_id: string;
  project_id: string;
  sip_trunk_id: string;
  number: string;
  label: string | null;
  dispatch_rules: string;
  created_at: string;
  updated_at: string;
}

export interface SipTrunkTable {
  id: string;
  workspace_id: string;
  name: string;
  provider: string;
  termination_uri: string;
  auth_username: string;
  auth_password_enc: string;
  transport: string;
  allowed_ips: string;
  status: string;
  created_at: string;
  updated_at: string;
  /** 1: keep a REGISTER binding at the carrier (migration 008). */
  register: number;
  /** Where to register; null: the termination_uri's host. */
  registrar_uri: string | null;
  /** 1: ping the termination host with OPTIONS. */
  health_check: number;
  /** Written by the SIP node: null (register off), registering, registered, failed. */
  registration_status: string | null;
  registration_error: string | null;
  registered_until: string | null;
  /** Written by the SIP node: null (health_check off), unknown, up, down. */
  health: string | null;
}

export interface ConversationTable {
  id: string;
  workspace_id: string;
  project_id: string;
  session_id: string;
  created_at: string;
  updated_at: string;
  /** The workflow steps as JSON (an array of ConversationStep); null before the first. */
  steps?: string | null;
}

export interface MessageTable {
  id: string;
  conversation_id: string;
  sequence: number;
  role: string;
  content: string;
  agent_name: string | null;
  spoken_at: string;
  latency_ms: number | null;
  /** JSON of the engine's LatencyBreakdown; null where latency_ms is, and on older rows. */
  latency: string | null;
  /** 1 when the user cut the (assistant) message short; 0 (the default) otherwise. */
  interrupted?: number;
  /** Of an interrupted message: the length of the prefix the user heard (estimated); null when unknown. */
  heard_chars?: number | null;
}

export interface UsageEventTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  metric: string;
  provider: string | null;
  quantity: number;
  occurred_at: string;
}

export interface IdempotencyKeyTable {
  workspace_id: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/** Rows per workspace and resource, kept by triggers (migration 003); bigint on PostgreSQL. */
export interface ResourceCountTable {
  workspace_id: string;
  resource: string;
  total: number | string;
}

export interface ServerSettingTable {
  name: string;
  value: string;
}

export interface CoreTables {
  workspaces: WorkspaceTable;
  api_keys: ApiKeyTable;
  projects: ProjectTable;
  agents: AgentTable;
  workflows: WorkflowTable;
  workflow_versions: WorkflowVersionTable;
  sessions: SessionTable;
  calls: CallTable;
  phone_numbers: PhoneNumberTable;
  sip_trunks: SipTrunkTable;
  conversations: ConversationTable;
  messages: MessageTable;
  usage_events: UsageEventTable;
  idempotency_keys: IdempotencyKeyTable;
  server_settings: ServerSettingTable;
  resource_counts: ResourceCountTable;
}

// Each part adds its own tables interface to this intersection (webhooks: WebhookTables, …).
export type Database = CoreTables & WebhookTables;
