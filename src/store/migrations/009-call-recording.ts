// Call recording and answering-machine detection (docs/calls.md):
//   record            0/1: the call is to be recorded (POST /calls, or the dispatch rule that took it)
//   recording_url     the API address of its recording once one exists; null before and after
//                     retention deletes it. Stored whole, because the store renders the Call resource
//                     (005) and cannot know PUBLIC_BASE_URL
//   recording_error   why a requested recording is absent (disk full, storage refused); the call
//                     went on without it
//   machine_detection 0/1, and wait_for_beep 0/1: run answering-machine detection when answered
//                     (outbound calls and dial legs), and wait for the voicemail beep on a machine
//   answered_by       human, machine, unknown; null when not detected
// The API rendering (005) gains recording_url, recording_error and answered_by, after created_at:
// on PostgreSQL the trigger function is replaced; SQLite cannot change a generated column, so the
// table is rebuilt as in 005, indexes and triggers replayed.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const apiTime = (column: string) =>
  `case when length(${column}) >= 20 then substr(${column}, 1, 19) || 'Z' else ${column} end`;

const SQLITE_BASE = `'id', id, 'direction', direction, 'status', status, 'from', from_number, 'to', to_number,
  'project_id', project_id, 'workflow_id', workflow_id, 'workflow_version', workflow_version,
  'session_id', session_id, 'duration_seconds', duration_seconds, 'hangup_reason', hangup_reason,
  'metadata', json(case when metadata = '' then '{}' else metadata end),
  'started_at', ${apiTime('started_at')}, 'ended_at', ${apiTime('ended_at')},
  'created_at', ${apiTime('created_at')}`;
const SQLITE_NEW = `json_object(${SQLITE_BASE},
  'recording_url', recording_url, 'recording_error', recording_error, 'answered_by', answered_by)`;
const SQLITE_OLD = `json_object(${SQLITE_BASE})`;

const PG_BASE = `new.id, new.direction, new.status, new.from_number as "from", new.to_number as "to",
  new.project_id, new.workflow_id, new.workflow_version, new.session_id, new.duration_seconds,
  new.hangup_reason, (case when new.metadata = '' then '{}' else new.metadata end)::json as metadata,
  ${apiTime('new.started_at')} as started_at, ${apiTime('new.ended_at')} as ended_at,
  ${apiTime('new.created_at')} as created_at`;
const PG_NEW = `(select row_to_json(c)::text from (select ${PG_BASE},
  new.recording_url, new.recording_error, new.answered_by) c)`;
const PG_OLD = `(select row_to_json(c)::text from (select ${PG_BASE}) c)`;

const OLD_COLUMNS = `id, workspace_id, project_id, workflow_id, workflow_version, session_id, phone_number_id,
  direction, status, from_number, to_number, duration_seconds, hangup_reason, metadata, variables,
  sip_call_id, started_at, ended_at, created_at, updated_at, node_id`;

const OLD_DEFINITIONS = `id text primary key, workspace_id text not null, project_id text not null,
  workflow_id text, workflow_version integer, session_id text, phone_number_id text,
  direction text not null, status text not null, from_number text not null,
  to_number text not null, duration_seconds integer, hangup_reason text,
  metadata text not null, variables text not null, sip_call_id text, started_at text,
  ended_at text, created_at text not null, updated_at text not null, node_id text`;
const NEW_DEFINITIONS = `${OLD_DEFINITIONS}, record integer not null default 0, recording_url text,
  recording_error text, machine_detection integer not null default 0,
  wait_for_beep integer not null default 0, answered_by text`;

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
    await sql`alter table calls
      add column record integer not null default 0,
      add column recording_url text,
      add column recording_error text,
      add column machine_detection integer not null default 0,
      add column wait_for_beep integer not null default 0,
      add column answered_by text`.execute(db);
    await replacePostgresRendering(db, PG_NEW);
    return;
  }
  await rebuildSqlite(db, NEW_DEFINITIONS, SQLITE_NEW, OLD_COLUMNS);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table calls drop column record, drop column recording_url,
      drop column recording_error, drop column machine_detection, drop column wait_for_beep,
      drop column answered_by`.execute(db);
    await replacePostgresRendering(db, PG_OLD);
    return;
  }
  await rebuildSqlite(db, OLD_DEFINITIONS, SQLITE_OLD, OLD_COLUMNS);
}
