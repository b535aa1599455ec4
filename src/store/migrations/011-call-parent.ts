// Dial legs as calls (docs/calls.md): a leg that a workflow dials from a running call (a `dial`
// node, a warm transfer's human) is a call record of its own, and
//   parent_call_id   the call it was dialled from; null for every other call
// The API rendering gains parent_call_id after answered_by: on PostgreSQL the trigger function is
// replaced; SQLite cannot change a generated column, so the table is rebuilt (as 009 did),
// indexes and triggers replayed. An index finds a call's legs.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const apiTime = (column: string) =>
  `case when length(${column}) >= 20 then substr(${column}, 1, 19) || 'Z' else ${column} end`;

const SQLITE_BASE = `'id', id, 'direction', direction, 'status', status, 'from', from_number, 'to', to_number,
  'project_id', project_id, 'workflow_id', workflow_id, 'workflow_version', workflow_version,
  'session_id', session_id, 'duration_seconds', duration_seconds, 'hangup_reason', hangup_reason,
  'metadata', json(case when metadata = '' then '{}' else metadata end),
  'started_at', ${apiTime('started_at')}, 'ended_at', ${apiTime('ended_at')},
  'created_at', ${apiTime('created_at')},
  'recording_url', recording_url, 'recording_error', recording_error, 'answered_by', answered_by`;
const SQLITE_NEW = `json_object(${SQLITE_BASE}, 'parent_call_id', parent_call_id)`;
const SQLITE_OLD = `json_object(${SQLITE_BASE})`;

const PG_BASE = `new.id, new.direction, new.status, new.from_number as "from", new.to_number as "to",
  new.project_id, new.workflow_id, new.workflow_version, new.session_id, new.duration_seconds,
  new.hangup_reason, (case when new.metadata = '' then '{}' else new.metadata end)::json as metadata,
  ${apiTime('new.started_at')} as started_at, ${apiTime('new.ended_at')} as ended_at,
  ${apiTime('new.created_at')} as created_at, new.recording_url, new.recording_error, new.answered_by`;
const PG_NEW = `(select row_to_json(c)::text from (select ${PG_BASE}, new.parent_call_id) c)`;
const PG_OLD = `(select row_to_json(c)::text from (select ${PG_BASE}) c)`;

const OLD_COLUMNS = `id, workspace_id, project_id, workflow_id, workflow_version, session_id, phone_number_id,
  direction, status, from_number, to_number, duration_seconds, hangup_reason, metadata, variables,
  sip_call_id, started_at, ended_at, created_at, updated_at, node_id, record, recording_url,
  recording_error, machine_detection, wait_for_beep, answered_by`;

const OLD_DEFINITIONS = `id text primary key, workspace_id text not null, project_id text not null,
  workflow_id text, workflow_version integer, session_id text, phone_number_id text,
  direction text not null, status text not null, from_number text not null,
  to_number text not null, duration_seconds integer, hangup_reason text,
  metadata text not null, variables text not null, sip_call_id text, started_at text,
  ended_at text, created_at text not null, updated_at text not null, node_id text,
  record integer not null default 0, recording_url text, recording_error text,
  machine_detection integer not null default 0, wait_for_beep integer not null default 0,
  answered_by text`;
const NEW_DEFINITIONS = `${OLD_DEFINITIONS}, parent_call_id text`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function replacePostgresRendering(db: Kysely<any>, rendering: string): Promise<void> {
  await sql
    .raw(
      `create or replace function calls_api_json() returns trigger language plpgsql as $$
      begin
        new.api_json := ${rendering};
        return new;
      end $$`,
    )
    .execute(db);
  await sql`update calls set api_json = null`.execute(db);
}

/** The SQLite table rebuilt with `definitions` and the rendering, copying `columns` across. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rebuildSqlite(db: Kysely<any>, definitions: string, rendering: string, columns: string) {
  const { rows: attached } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where tbl_name = 'calls' and type in ('index', 'trigger') and sql is not null
      and name <> 'calls_parent_idx'
    order by type, name`.execute(db);
  await sql
    .raw(
      `create table calls_rebuilt (${definitions}, api_json text not null generated always as (${rendering}) stored)`,
    )
    .execute(db);
  await sql.raw(`insert into calls_rebuilt (${columns}) select ${columns} from calls`).execute(db);
  await sql`drop table calls`.execute(db);
  await sql`alter table calls_rebuilt rename to calls`.execute(db);
  for (const { sql: definition } of attached) await sql.raw(definition).execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table calls add column parent_call_id text`.execute(db);
    await replacePostgresRendering(db, PG_NEW);
  } else {
    await rebuildSqlite(db, NEW_DEFINITIONS, SQLITE_NEW, OLD_COLUMNS);
  }
  await sql`create index calls_parent_idx on calls (parent_call_id)`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index calls_parent_idx`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table calls drop column parent_call_id`.execute(db);
    await replacePostgresRendering(db, PG_OLD);
    return;
  }
  await rebuildSqlite(db, OLD_DEFINITIONS, SQLITE_OLD, OLD_COLUMNS);
}
