// SQL lives in `*.repo.ts` files and in src/store (ARCHITECTURE.md, "Rules that keep it livable").
// An ESLint rule of our own: outside those, production code may not build a Kysely query
// (selectFrom, insertInto, updateTable, deleteFrom, replaceInto, mergeInto), write a `sql`
// template, or import `sql` from kysely. test/lint/sql-in-repos.test.ts proves it bites.

const QUERY_STARTS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
]);

/** True for a file where SQL belongs: a repo, or the store itself. */
export function sqlAllowed(file) {
  const f = file.replaceAll('\\', '/');
  return f.endsWith('.repo.ts') || /(^|\/)src\/store\//.test(f);
}

function relative(context) {
  const cwd = (context.cwd ?? context.getCwd()).replaceAll('\\', '/');
  const file = (context.filename ?? context.getFilename()).replaceAll('\\', '/');
  return file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Kysely queries only in *.repo.ts files and src/store' },
    messages: {
      query: '{{what}} outside a repo: move the query to a *.repo.ts file (or src/store).',
    },
    schema: [],
  },
  create(context) {
    const file = relative(context);
    if (sqlAllowed(file)) return {};
    const report = (node, what) => context.report({ node, messageId: 'query', data: { what } });
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier') {
          if (QUERY_STARTS.has(callee.property.name)) report(node, `.${callee.property.name}()`);
        }
      },
      TaggedTemplateExpression(node) {
        const tag = node.tag;
        const name =
          tag.type === 'Identifier' ? tag.name : tag.type === 'MemberExpression' ? tag.object.name : '';
        if (name === 'sql') report(node, 'a sql`` template');
      },
      ImportDeclaration(node) {
        if (node.source.value !== 'kysely') return;
        for (const s of node.specifiers) {
          if (s.type === 'ImportSpecifier' && s.imported.name === 'sql' && s.importKind !== 'type') {
            report(s, "sql from 'kysely'");
          }
        }
      },
    };
  },
};

export default { rules: { 'sql-in-repos': rule } };
