// npm run bench:api — the API's throughput and tail latency next to a bare Fastify route measured
// in the same run. The target server runs in a child process so autocannon (this process) does
// not share its event loop. Besides req/s it reports the server's CPU time per request, which
// stays meaningful on a busy machine where req/s does not. Stores: SQLite always; PostgreSQL when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

interface Target {
  port: number;
  key: string;
  projectId: string;
}

interface Running {
  target: Target;
  /** The child's CPU time so far, in µs. */
  cpu(): Promise<number>;
  stop(): void;
}

interface Result {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU per request, µs. */
  cpuPerRequest: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 100;

async function startTarget(kind: 'bare' | 'sqlite' | 'postgres'): Promise<Running> {
  const child = spawn(process.execPath, [path.join(here, 'api-target.js'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.setEncoding('utf8');
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buf = '';
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const nextLine = () =>
    new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : waiting.push(resolve)));
  const target = JSON.parse(await nextLine()) as Target;
  return {
    target,
    async cpu() {
      child.kill('SIGUSR2');
      return (JSON.parse(await nextLine()) as { cpu: number }).cpu;
    },
    stop: () => child.kill('SIGTERM'),
  };
}

async function load(server: Running, url: string, key?: string): Promise<Result> {
  const before = await server.cpu();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const cpu = (await server.cpu()) - before;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

function row(name: string, r: Result, base?: Result): string {
  const ratio = base ? `${((r.rps / base.rps) * 100).toFixed(1)}%` : 'baseline';
  const cpuRatio = base ? `${((base.cpuPerRequest / r.cpuPerRequest) * 100).toFixed(1)}%` : '';
  return (
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} req/s ${ratio.padStart(8)}   p99 ${String(r.p99).padStart(4)} ms   ` +
    `cpu ${r.cpuPerRequest.toFixed(0).padStart(4)} µs/req ${cpuRatio.padStart(7)}   errors ${r.errors}`
  );
}

async function main(): Promise<void> {
  console.log(
    `bench:api — ${CONNECTIONS} connections, ${DURATION} s per run, ${os.cpus().length} cores, ${process.version}`,
  );
  console.log('ratios: req/s against the bare route; bare CPU per request over ours (load-independent)');
  const bare = await startTarget('bare');
  const baseline = await load(bare, `http://127.0.0.1:${bare.target.port}/bare`);
  bare.stop();
  console.log(row('bare fastify GET', baseline));

  const kinds: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL) kinds.push('postgres');
  let errors = 0;
  for (const kind of kinds) {
    const server = await startTarget(kind);
    const base = `http://127.0.0.1:${server.target.port}/api/v1`;
    const one = await load(server, `${base}/projects/${server.target.projectId}`, server.target.key);
    const list = await load(server, `${base}/calls?per_page=25`, server.target.key);
    server.stop();
    console.log(row(`${kind}: GET /projects/{id}`, one, baseline));
    console.log(row(`${kind}: GET /calls?per_page=25 (10k rows)`, list, baseline));
    errors += one.errors + list.errors;
    if (kind === 'sqlite') {
      const okOne = one.rps >= 0.4 * baseline.rps && one.p99 < 10;
      const okList = list.rps >= 0.2 * baseline.rps;
      console.log(
        `  targets (sqlite): single ≥40% with p99 <10 ms: ${okOne ? 'met' : 'NOT met'}; list ≥20%: ${okList ? 'met' : 'NOT met'}`,
      );
    }
  }
  if (errors > 0) process.exitCode = 1;
}

void main();
