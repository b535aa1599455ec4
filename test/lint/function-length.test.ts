// The function-length rule of eslint.config.js bites: a production function (a dashboard component
// too) one line over the limit is refused, one at the limit is not, tests are not held to it; and
// the files let off (lint/long-functions.js) are only those that still need it.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

let eslint: ESLint;
let limit: number;
let letOff: string[];

beforeAll(async () => {
  eslint = new ESLint({ cwd: ROOT });
  const rule = (await import(pathToFileURL(path.join(ROOT, 'lint/long-functions.js')).href)) as {
    MAX_FUNCTION_LINES: number;
    longFunctionFiles: string[];
  };
  limit = rule.MAX_FUNCTION_LINES;
  letOff = rule.longFunctionFiles;
});

/** A function of `lines` lines of code, with blank lines and comments between that do not count. */
function functionOf(lines: number): string {
  // The signature, `let`, `return` and the closing brace are four of the lines.
  const steps = Array.from({ length: lines - 4 }, (_, i) => `  // step ${i}\n\n  total += ${i};`);
  return `export function probe(): number {\n  let total = 0;\n${steps.join('\n')}\n  return total;\n}\n`;
}

/** The files a pattern of lint/long-functions.js names (a `*` stands for part of a file name). */
function expand(pattern: string): string[] {
  const dir = path.dirname(pattern);
  const name = new RegExp(`^${path.basename(pattern).replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`);
  if (!fs.existsSync(path.join(ROOT, dir))) return [];
  return fs
    .readdirSync(path.join(ROOT, dir))
    .filter((f) => name.test(f))
    .map((f) => path.join(dir, f));
}

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

// The first lint loads the typed ESLint configuration, which takes long on a loaded machine.
describe('function length', { timeout: 120_000 }, () => {
  it('refuses a production function one line over the limit, in src/, bench/ and the dashboard', async () => {
    expect(await ruleIds('src/engine/probe.ts', functionOf(limit + 1))).toEqual(['max-lines-per-function']);
    expect(await ruleIds('bench/probe.ts', functionOf(limit + 1))).toEqual(['max-lines-per-function']);
    expect(await ruleIds('web/src/pages/probe.tsx', functionOf(limit + 1))).toEqual([
      'max-lines-per-function',
    ]);
  });

  it('lets one at the limit be, and does not count blank lines or comments', async () => {
    expect(await ruleIds('src/engine/probe.ts', functionOf(limit))).toEqual([]);
  });

  it('does not hold tests and their fixtures to it', async () => {
    expect(await ruleIds('src/engine/probe.test.ts', functionOf(limit + 20))).toEqual([]);
    expect(await ruleIds('src/engine/testing/probe.ts', functionOf(limit + 20))).toEqual([]);
    expect(await ruleIds('web/src/pages/probe.test.tsx', functionOf(limit + 20))).toEqual([]);
  });

  it('lets off only files that exist and still have a function over the limit', async () => {
    for (const pattern of letOff) {
      const files = expand(pattern);
      expect(files.length, pattern).toBeGreaterThan(0);
      const strict = new ESLint({
        cwd: ROOT,
        overrideConfig: {
          ignores: [],
          rules: {
            'max-lines-per-function': [
              'error',
              { max: limit, skipBlankLines: true, skipComments: true, IIFEs: true },
            ],
          },
        },
      });
      const results = await strict.lintFiles(files.map((f) => path.join(ROOT, f)));
      const over = results.flatMap((r) => r.messages).filter((m) => m.ruleId === 'max-lines-per-function');
      expect(
        over.length,
        `${pattern} has no function over ${limit} lines any more: take it off the list`,
      ).toBeGreaterThan(0);
    }
  });
});
