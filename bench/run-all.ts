// npm run bench: every benchmark in turn, each printing its own ratio against a baseline measured
// in the same run. Exits non-zero if any benchmark fails to run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const benches = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file.replace(/\.bench\.js$/, '')} ===`);
  // --expose-gc: benchmarks that report memory read it after full collections.
  const run = spawnSync(process.execPath, ['--expose-gc', path.join(here, file)], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.log(`(${file} exited with ${run.status ?? run.signal})`);
  }
}
process.exitCode = failed ? 1 : 0;
