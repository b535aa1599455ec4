// Whether a build's output is newer than everything it is built from, so the tests that need the
// built service (the command line, the browser journeys) build only when a source changed since.
// `npm install` builds it all, so on a fresh clone no test builds again; on a machine where eleven
// suites each rebuilt the server, the dashboard and the voice page, that cost minutes of CPU.
import fs from 'node:fs';
import path from 'node:path';

/** The newest modification time under `paths` (files or folders; node_modules and dist skipped). */
export function newestMtime(paths: readonly string[]): number {
  let newest = 0;
  const visit = (p: string, root: boolean): void => {
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    if (!stat) return;
    // A folder's own time counts too (it changes when a file in it is removed or renamed), except
    // a root's: creating its dist/ folder (the build itself) changes that.
    if (!root || !stat.isDirectory()) newest = Math.max(newest, stat.mtimeMs);
    if (!stat.isDirectory()) return;
    for (const entry of fs.readdirSync(p)) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      visit(path.join(p, entry), false);
    }
  };
  for (const p of paths) visit(p, true);
  return newest;
}

/** True when `output` exists and was written after every file of `inputs` last changed. */
export function isFresh(output: string, inputs: readonly string[]): boolean {
  const out = fs.statSync(output, { throwIfNoEntry: false });
  return out !== undefined && out.mtimeMs > newestMtime(inputs);
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the server's build (dist/) is made from. */
export const SERVER_SOURCES = ['src', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map(
  (f) => path.join(ROOT, f),
);

/** Whether dist/ holds the server as the sources are now. */
export function serverBuildFresh(): boolean {
  return isFresh(path.join(ROOT, 'dist/src/main.js'), SERVER_SOURCES);
}

/**
 * The command that runs `switchboard <args>` as a process of its own: the built CLI when dist/ is
 * fresh (it starts in a second; `npm install` built it), else from source through vite-node (which
 * compiles the whole tree first: minutes on a loaded machine).
 */
export function switchboardCommand(args: readonly string[]): { file: string; args: string[] } {
  const entry = serverBuildFresh()
    ? [path.join(ROOT, 'bin/switchboard.js')]
    : [path.join(ROOT, 'node_modules/vite-node/vite-node.mjs'), 'src/cli/main.ts'];
  return { file: process.execPath, args: [...entry, ...args] };
}
