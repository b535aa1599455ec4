// npm run bench:api — the API's throughput and tail latency next to a bare Fastify route measured
// in the same run. The target server runs in a child process so autocannon (this process) does
// not share its event loop. Stores: SQLite always; PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

interface Target {
  port: number;
  key: string;
  projectId: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 100;

async function startTarget(
  kind: 'bare' | 'sqlite' | 'postgres',
): Promise<{ target: Target; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(here, 'api-target.js'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  child.stdout.setEncoding('utf8');
  for await (const chunk of child.stdout) {
    buf += chunk;
    const line = buf.split('\n').find((l) => l.startsWith('{'));
    if (line) return { target: JSON.parse(line) as Target, stop: () => child.kill('SIGTERM') };
  }
  throw new Error(`target ${kind} exited early`);
}

async function load(url: string, key?: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { rps: result.requests.average, p99: result.latency.p99, errors: bad };
}

function row(name: string, r: { rps: number; p99: number; errors: number }, base?: number): string {
  const ratio = base ? `${((r.rps / base) * 100).toFixed(1)}%` : '(baseline)';
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s   p99 ${String(r.p99).padStart(4)} ms   ${ratio.padStart(10)}   errors ${r.errors}`;
}

async function main(): Promise<void> {
  console.log(
    `bench:api — ${CONNECTIONS} connections, ${DURATION} s per run, ${os.cpus().length} cores, node ${process.version}`,
  );
  const bare = await startTarget('bare');
  const baseline = await load(`http://127.0.0.1:${bare.target.port}/bare`);
  bare.stop();
  console.log(row('bare fastify GET', baseline));

  const kinds: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL) kinds.push('postgres');
  let failed = false;
  for (const kind of kinds) {
    const { target, stop } = await startTarget(kind);
    const base = `http://127.0.0.1:${target.port}/api/v1`;
    const one = await load(`${base}/projects/${target.projectId}`, target.key);
    const list = await load(`${base}/calls?per_page=25`, target.key);
    stop();
    console.log(row(`${kind}: GET /projects/{id}`, one, baseline.rps));
    console.log(row(`${kind}: GET /calls?per_page=25 (10k)`, list, baseline.rps));
    if (kind === 'sqlite') {
      const okOne = one.rps >= 0.4 * baseline.rps && one.p99 < 10;
      const okList = list.rps >= 0.2 * baseline.rps;
      console.log(
        `  targets (sqlite): single ≥40% and p99 <10 ms: ${okOne ? 'met' : 'NOT met'}; list ≥20%: ${okList ? 'met' : 'NOT met'}`,
      );
      failed ||= one.errors + list.errors > 0;
    }
  }
  await once(process, 'beforeExit');
  if (failed) process.exitCode = 1;
}

void main();
