// The build-freshness check: an output is fresh only while nothing it is built from changed after it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isFresh, newestMtime } from './fresh-build.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tree(): { src: string; out: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-'));
  dirs.push(root);
  fs.mkdirSync(path.join(root, 'src/deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'a');
  fs.writeFileSync(path.join(root, 'src/deep/b.ts'), 'b');
  return { src: path.join(root, 'src'), out: path.join(root, 'out.js') };
}

/** Sets a path's modification time to `ms` since the epoch. */
const touch = (p: string, ms: number) => fs.utimesSync(p, ms / 1000, ms / 1000);

function allAt(src: string, ms: number): void {
  for (const p of [src, path.join(src, 'a.ts'), path.join(src, 'deep'), path.join(src, 'deep/b.ts')])
    touch(p, ms);
}

describe('isFresh', () => {
  it('is false without an output, true once the output is newer than every input', () => {
    const { src, out } = tree();
    allAt(src, 1_000_000);
    expect(isFresh(out, [src])).toBe(false);
    fs.writeFileSync(out, 'built');
    touch(out, 2_000_000);
    expect(isFresh(out, [src])).toBe(true);
  });

  it('is false again when a file deep inside changes, or a file is removed', () => {
    const { src, out } = tree();
    allAt(src, 1_000_000);
    fs.writeFileSync(out, 'built');
    touch(out, 2_000_000);
    touch(path.join(src, 'deep/b.ts'), 3_000_000);
    expect(isFresh(out, [src])).toBe(false);
    touch(path.join(src, 'deep/b.ts'), 1_000_000);
    expect(isFresh(out, [src])).toBe(true);
    // Removed below the top folder (whose own time the build's dist/ changes, so it is not read).
    fs.rmSync(path.join(src, 'deep/b.ts'));
    expect(newestMtime([src])).toBeGreaterThan(2_000_000);
    expect(isFresh(out, [src])).toBe(false);
  });

  it('is not made stale by the build creating dist/ inside an input folder', () => {
    const { src, out } = tree();
    allAt(src, 1_000_000);
    fs.writeFileSync(out, 'built');
    touch(out, 2_000_000);
    fs.mkdirSync(path.join(src, 'dist'));
    touch(src, 3_000_000);
    expect(isFresh(out, [src])).toBe(true);
  });

  it('skips node_modules and dist folders, and inputs that do not exist', () => {
    const { src, out } = tree();
    fs.mkdirSync(path.join(src, 'node_modules'));
    fs.writeFileSync(path.join(src, 'node_modules/x.js'), 'x');
    allAt(src, 1_000_000);
    touch(path.join(src, 'node_modules/x.js'), 9_000_000);
    touch(path.join(src, 'node_modules'), 9_000_000);
    fs.writeFileSync(out, 'built');
    touch(out, 2_000_000);
    expect(isFresh(out, [src, path.join(src, 'missing')])).toBe(true);
  });
});
