// The SQL rules of eslint.config.js bite: a Kysely query or `sql` template outside a repo or the
// store is reported, and telephony may not import Kysely or the store even for a type.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const QUERY = `import type { Executor } from '../../store/database.js';
export const find = (ex: Executor, id: string) =>
  ex.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
`;
const TEMPLATE = `import { sql } from 'kysely';
export const now = sql<string>\`current_timestamp\`;
`;

describe('sql-in-repos: Kysely queries only in *.repo.ts and src/store', () => {
  it.each([
    ['src/modules/calls/probe.service.ts', QUERY, 'a service'],
    ['src/modules/agents/probe.ts', QUERY, 'a module file that is not a repo'],
    ['src/engine/probe.ts', QUERY, 'the engine'],
    ['src/events/probe.ts', QUERY, 'the webhook outbox and worker'],
    ['src/api/plugins/probe.ts', QUERY, 'an API plugin'],
  ])('%s building a query is refused (%s)', async (file, code) => {
    expect(await ruleIds(file, code)).toEqual(['switchboard/sql-in-repos']);
  });

  it('refuses a sql template and its import outside a repo', async () => {
    expect(await ruleIds('src/modules/usage/probe.ts', TEMPLATE)).toEqual([
      'switchboard/sql-in-repos',
      'switchboard/sql-in-repos',
    ]);
  });

  it.each([
    ['src/modules/calls/probe.repo.ts', QUERY],
    ['src/modules/usage/probe.repo.ts', TEMPLATE],
    ['src/store/probe.ts', QUERY],
    ['src/modules/calls/probe.test.ts', QUERY],
  ])('%s may query', async (file, code) => {
    expect(await ruleIds(file, code)).toEqual([]);
  });
});

describe('telephony reaches the store only through the call records service', () => {
  it.each([
    ["import type { Kysely } from 'kysely';\nexport type K = Kysely<object>;\n", 'kysely'],
    [
      "import type { CallTable } from '../../store/schema.js';\nexport type C = CallTable;\n",
      'the store schema',
    ],
    [
      "import { inTransaction } from '../../store/database.js';\nexport const t = inTransaction;\n",
      'the database',
    ],
  ])('src/telephony/calls refuses %#: %s', async (code, _what) => {
    const ids = await ruleIds('src/telephony/calls/probe.ts', code);
    expect(ids).toContain('no-restricted-imports');
  });

  it('a telephony test may not either', async () => {
    const code = "import type { CallTable } from '../../store/schema.js';\nexport type C = CallTable;\n";
    expect(await ruleIds('src/telephony/calls/probe.test.ts', code)).toContain('no-restricted-imports');
  });

  it('the call records service is the way in', async () => {
    const code =
      "import type { CallRecords } from '../../modules/calls/call-records.service.js';\nexport type R = CallRecords;\n";
    expect(await ruleIds('src/telephony/calls/probe.ts', code)).toEqual([]);
  });
});
