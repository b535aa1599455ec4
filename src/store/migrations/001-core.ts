// The control plane's tables. Types are chosen to mean the same on SQLite and PostgreSQL.
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner_email', 'text')
    .addColumn('sip_label', 'text', (c) => c.notNull().unique())
    .addColumn('plan_voice_minutes', 'integer')
    .addColumn('plan_sessions', 'integer')
    .addColumn('plan_calls', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('api_keys_workspace')
    .on('api_keys')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('projects_workspace')
    .on('projects')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('system_prompt', 'text', (c) => c.notNull())
    .addColumn('llm_provider', 'text', (c) => c.notNull())
    .addColumn('llm_model', 'text', (c) => c.notNull())
    .addColumn('temperature', 'double precision', (c) => c.notNull())
    .addColumn('stt_provider', 'text', (c) => c.notNull())
    .addColumn('stt_language', 'text', (c) => c.notNull())
    .addColumn('tts_provider', 'text', (c) => c.notNull())
    .addColumn('tts_voice', 'text')
    .addColumn('greeting', 'text')
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('knowledge_base_ids', 'text', (c) => c.notNull())
    .addColumn('mcp_server_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agents_workspace')
    .on('agents')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('agents_project').on('agents').column('project_id').execute();

  await db.schema
    .createTable('workflows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('graph', 'text', (c) => c.notNull())
    .addColumn('published_version', 'integer')
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflows_workspace')
    .on('workflows')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('workflows_project').on('workflows').column('project_id').execute();

  await db.schema
    .createTable('workflow_versions')
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('graph', 'text', (c) => c.notNull())
    .addColumn('schema_version', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('published_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workflow_versions_pk', ['workflow_id', 'version'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('workflow_version', 'integer', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text')
    .addColumn('end_reason', 'text')
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sessions_workspace')
    .on('sessions')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text')
    .addColumn('workflow_version', 'integer')
    .addColumn('session_id', 'text')
    .addColumn('phone_number_id', 'text')
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer')
    .addColumn('hangup_reason', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('sip_call_id', 'text')
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('calls_workspace')
    .on('calls')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('calls_status').on('calls').column('status').execute();

  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('sip_trunk_id', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('dispatch_rules', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('phone_numbers_workspace_number', ['workspace_id', 'number'])
    .execute();
  await db.schema
    .createIndex('phone_numbers_workspace')
    .on('phone_numbers')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('sip_trunks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('termination_uri', 'text', (c) => c.notNull())
    .addColumn('auth_username', 'text', (c) => c.notNull())
    .addColumn('auth_password_enc', 'text', (c) => c.notNull())
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('allowed_ips', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sip_trunks_workspace')
    .on('sip_trunks')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('conversations_workspace')
    .on('conversations')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('agent_name', 'text')
    .addColumn('spoken_at', 'text', (c) => c.notNull())
    .addColumn('latency_ms', 'integer')
    .addUniqueConstraint('messages_conversation_sequence', ['conversation_id', 'sequence'])
    .execute();

  await db.schema
    .createTable('usage_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('quantity', 'double precision', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_events_workspace')
    .on('usage_events')
    .columns(['workspace_id', 'metric', 'occurred_at'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key'])
    .execute();

  await db.schema
    .createTable('server_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'server_settings',
    'idempotency_keys',
    'usage_events',
    'messages',
    'conversations',
    'sip_trunks',
    'phone_numbers',
    'calls',
    'sessions',
    'workflow_versions',
    'workflows',
    'agents',
    'projects',
    'api_keys',
    'workspaces',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
