// Runs once per `vitest run`, outside the test files: removes the PostgreSQL schemas suites make
// (t_<hex>) before and after the run. Suites do not drop their own schemas, because Kysely's
// migrator introspects tables across all schemas and fails when another file drops one mid-query.
import pg from 'pg';

async function dropTestSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where nspname ~ '^(t|bench)_[0-9a-f]+$'",
    );
    for (const { nspname } of rows) await client.query(`drop schema if exists ${nspname} cascade`);
  } finally {
    await client.end();
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) await dropTestSchemas(url);
  return async () => {
    if (url) await dropTestSchemas(url);
  };
}
