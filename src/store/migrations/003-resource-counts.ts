// Per-workspace row counts, so an unfiltered list's `meta.total` is one row read instead of a
// count(*) over the workspace's whole history. Triggers keep the counts, inside the statement that
// inserts or deletes the rows and therefore inside its transaction, whichever code path writes
// them (the API, the call controller, the CLI). Counted so far: calls.
//
// PostgreSQL: statement-level triggers with transition tables, so a bulk insert updates each
// workspace's count once. The counter row is locked from the insert to the commit: concurrent
// transactions inserting calls into the same workspace commit one after the other from there.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resource_counts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('resource_counts_pk', ['workspace_id', 'resource'])
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // `set search_path from current`: the functions find resource_counts in the schema they were
    // created in, whatever the caller's search_path.
    await sql`
      create function resource_counts_calls_inserted() returns trigger
      language plpgsql set search_path from current as $$
      begin
        insert into resource_counts (workspace_id, resource, total)
          select workspace_id, 'calls', count(*) from inserted_rows group by workspace_id
          on conflict (workspace_id, resource)
          do update set total = resource_counts.total + excluded.total;
        return null;
      end $$`.execute(db);
    await sql`
      create function resource_counts_calls_deleted() returns trigger
      language plpgsql set search_path from current as $$
      begin
        update resource_counts c set total = c.total - d.n
          from (select workspace_id, count(*) as n from deleted_rows group by workspace_id) d
          where c.workspace_id = d.workspace_id and c.resource = 'calls';
        return null;
      end $$`.execute(db);
    await sql`
      create trigger resource_counts_calls_insert after insert on calls
      referencing new table as inserted_rows
      for each statement execute function resource_counts_calls_inserted()`.execute(db);
    await sql`
      create trigger resource_counts_calls_delete after delete on calls
      referencing old table as deleted_rows
      for each statement execute function resource_counts_calls_deleted()`.execute(db);
    // A call moved to another workspace (nothing does this today) moves its count. Row-level with
    // a WHEN clause, so the status updates every call goes through never reach the function.
    await sql`
      create function resource_counts_calls_moved() returns trigger
      language plpgsql set search_path from current as $$
      begin
        update resource_counts set total = total - 1
          where workspace_id = old.workspace_id and resource = 'calls';
        insert into resource_counts (workspace_id, resource, total)
          values (new.workspace_id, 'calls', 1)
          on conflict (workspace_id, resource)
          do update set total = resource_counts.total + 1;
        return null;
      end $$`.execute(db);
    await sql`
      create trigger resource_counts_calls_update after update of workspace_id on calls
      for each row when (old.workspace_id is distinct from new.workspace_id)
      execute function resource_counts_calls_moved()`.execute(db);
  } else {
    await sql`
      create trigger resource_counts_calls_insert after insert on calls begin
        insert into resource_counts (workspace_id, resource, total)
          values (new.workspace_id, 'calls', 1)
          on conflict (workspace_id, resource) do update set total = total + 1;
      end`.execute(db);
    await sql`
      create trigger resource_counts_calls_delete after delete on calls begin
        update resource_counts set total = total - 1
          where workspace_id = old.workspace_id and resource = 'calls';
      end`.execute(db);
    await sql`
      create trigger resource_counts_calls_update after update of workspace_id on calls
      when old.workspace_id is not new.workspace_id begin
        update resource_counts set total = total - 1
          where workspace_id = old.workspace_id and resource = 'calls';
        insert into resource_counts (workspace_id, resource, total)
          values (new.workspace_id, 'calls', 1)
          on conflict (workspace_id, resource) do update set total = total + 1;
      end`.execute(db);
  }

  // Calls stored before this migration.
  await sql`
    insert into resource_counts (workspace_id, resource, total)
    select workspace_id, 'calls', count(*) from calls group by workspace_id`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const t of ['insert', 'delete', 'update']) {
    await sql`drop trigger if exists ${sql.raw(`resource_counts_calls_${t}`)}${sql.raw(pg ? ' on calls' : '')}`.execute(
      db,
    );
  }
  if (pg) {
    for (const f of ['inserted', 'deleted', 'moved']) {
      await sql`drop function if exists ${sql.raw(`resource_counts_calls_${f}`)}()`.execute(db);
    }
  }
  await db.schema.dropTable('resource_counts').ifExists().execute();
}
