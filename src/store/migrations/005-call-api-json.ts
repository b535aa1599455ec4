// Each call keeps its API rendering (`api_json`): the JSON text of the Call resource, written when
// the row is written instead of on every read. The calls list is the API's busiest page and grows
// with a workspace's whole history; building 25 JSON objects of 15 fields per request cost more
// than finding the rows. The text is exactly what toCall() plus the Call schema's serializer write
// (field order, timestamps as whole seconds with `Z`, metadata verbatim);
// src/modules/calls/calls.repo.test.ts holds the two byte for byte, after updates too.
//
// The store keeps it current whichever code path writes a call (API, call controller, tests):
//   - SQLite: a STORED generated column. SQLite cannot add one to an existing table, so the table
//     is rebuilt: copied into a new one, which then takes the old one's name, indexes and triggers.
//   - PostgreSQL: a BEFORE INSERT OR UPDATE trigger (its JSON functions are not immutable, so a
//     generated column may not use them).
// A later change to the Call resource's fields needs a migration that redefines the rendering.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** apiTime() in SQL: whole seconds, `Z`; shorter stored forms as they are. */
const apiTime = (column: string) =>
  `case when length(${column}) >= 20 then substr(${column}, 1, 19) || 'Z' else ${column} end`;

const SQLITE_RENDERING = `json_object(
  'id', id, 'direction', direction, 'status', status, 'from', from_number, 'to', to_number,
  'project_id', project_id, 'workflow_id', workflow_id, 'workflow_version', workflow_version,
  'session_id', session_id, 'duration_seconds', duration_seconds, 'hangup_reason', hangup_reason,
  'metadata', json(case when metadata = '' then '{}' else metadata end),
  'started_at', ${apiTime('started_at')}, 'ended_at', ${apiTime('ended_at')},
  'created_at', ${apiTime('created_at')})`;

// row_to_json of a one-row derived table: compact, keys in column order (json_build_object would
// put spaces around its colons); text escaped as JSON.stringify does.
const POSTGRES_RENDERING = `(select row_to_json(c)::text from (select
  new.id, new.direction, new.status, new.from_number as "from", new.to_number as "to",
  new.project_id, new.workflow_id, new.workflow_version, new.session_id, new.duration_seconds,
  new.hangup_reason, (case when new.metadata = '' then '{}' else new.metadata end)::json as metadata,
  ${apiTime('new.started_at')} as started_at, ${apiTime('new.ended_at')} as ended_at,
  ${apiTime('new.created_at')} as created_at) c)`;

const COLUMNS = [
  'id',
  'workspace_id',
  'project_id',
  'workflow_id',
  'workflow_version',
  'session_id',
  'phone_number_id',
  'direction',
  'status',
  'from_number',
  'to_number',
  'duration_seconds',
  'hangup_reason',
  'metadata',
  'variables',
  'sip_call_id',
  'started_at',
  'ended_at',
  'created_at',
  'updated_at',
].join(', ');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table calls add column api_json text`.execute(db);
    await sql
      .raw(
        `
      create function calls_api_json() returns trigger language plpgsql as $$
      begin
        new.api_json := ${POSTGRES_RENDERING};
        return new;
      end $$`,
      )
      .execute(db);
    await sql`
      create trigger calls_api_json before insert or update on calls
      for each row execute function calls_api_json()`.execute(db);
    await sql`update calls set api_json = null`.execute(db);
    await sql`alter table calls alter column api_json set not null`.execute(db);
    return;
  }

  // Indexes and triggers go with the old table; their definitions are read back and replayed.
  const { rows: attached } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where tbl_name = 'calls' and type in ('index', 'trigger') and sql is not null
    order by type, name`.execute(db);
  await sql
    .raw(
      `
    create table calls_rebuilt (
      id text primary key, workspace_id text not null, project_id text not null,
      workflow_id text, workflow_version integer, session_id text, phone_number_id text,
      direction text not null, status text not null, from_number text not null,
      to_number text not null, duration_seconds integer, hangup_reason text,
      metadata text not null, variables text not null, sip_call_id text, started_at text,
      ended_at text, created_at text not null, updated_at text not null,
      api_json text not null generated always as (${SQLITE_RENDERING}) stored
    )`,
    )
    .execute(db);
  await sql.raw(`insert into calls_rebuilt (${COLUMNS}) select ${COLUMNS} from calls`).execute(db);
  await sql`drop table calls`.execute(db);
  await sql`alter table calls_rebuilt rename to calls`.execute(db);
  for (const { sql: definition } of attached) await sql.raw(definition).execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists calls_api_json on calls`.execute(db);
    await sql`drop function if exists calls_api_json()`.execute(db);
  }
  // SQLite (3.35+) drops a STORED generated column like any other.
  await sql`alter table calls drop column api_json`.execute(db);
}
