// npm run bench:api — the API's throughput and tail latency next to a bare Fastify route measured
// in the same run. The target server runs in a child process so autocannon (this process) does
// not share its event loop. Besides req/s it reports the server's CPU time per request, which
// stays meaningful on a busy machine where req/s does not. Stores: SQLite always; PostgreSQL when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set. BENCH_SECONDS (10) and BENCH_ROUNDS (1) tune it.
// Two reference rows are printed beside the targets: a bare route answering a page of the list's
// size (~11 KB), which shows what writing those bytes alone costs, and (SQLite) a bare route
// making only the single GET's two point reads (the key by hash, the project), which shows what
// those reads alone cost. The targets are against the first bare route.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

interface Target {
  port: number;
  key: string;
  projectId: string;
  /** SQLite only: the plain route making just the single GET's two point reads. */
  floorPort?: number;
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
/** BENCH_ROUNDS=N runs everything N times and adds the medians (noisy machines). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));

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

interface Round {
  bare: Result;
  /** The bare route answering a page of the list's size: a reference, not the target's baseline. */
  barePage: Result;
  runs: Array<{ kind: 'sqlite' | 'postgres'; one: Result; list: Result; floor?: Result }>;
}

async function round(kinds: Array<'sqlite' | 'postgres'>, print: boolean): Promise<Round> {
  const bare = await startTarget('bare');
  const baseline = await load(bare, `http://127.0.0.1:${bare.target.port}/bare`);
  const barePage = await load(bare, `http://127.0.0.1:${bare.target.port}/bare-page`);
  bare.stop();
  if (print) {
    console.log(row('bare fastify GET', baseline));
    console.log(row('(reference) bare, a 25-call page', barePage, baseline));
  }
  const runs: Round['runs'] = [];
  for (const kind of kinds) {
    const server = await startTarget(kind);
    const base = `http://127.0.0.1:${server.target.port}/api/v1`;
    const one = await load(server, `${base}/projects/${server.target.projectId}`, server.target.key);
    const list = await load(server, `${base}/calls?per_page=25`, server.target.key);
    const floor = server.target.floorPort
      ? await load(
          server,
          `http://127.0.0.1:${server.target.floorPort}/floor/${server.target.projectId}`,
          server.target.key,
        )
      : undefined;
    server.stop();
    if (print) {
      if (floor) console.log(row(`(reference) bare + the 2 point reads`, floor, baseline));
      console.log(row(`${kind}: GET /projects/{id}`, one, baseline));
      console.log(row(`${kind}: GET /calls?per_page=25 (10k rows)`, list, baseline));
      console.log(row(`  (reference) the list against the bare page`, list, barePage));
    }
    runs.push({ kind, one, list, ...(floor ? { floor } : {}) });
  }
  return { bare: baseline, barePage, runs };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Per field, the median over rounds; req/s as the median of each round's own ratio × bare. */
function medianOf(results: Result[], bares: Result[]): { r: Result; base: Result } {
  const base: Result = {
    rps: median(bares.map((b) => b.rps)),
    p99: median(bares.map((b) => b.p99)),
    errors: bares.reduce((n, b) => n + b.errors, 0),
    cpuPerRequest: median(bares.map((b) => b.cpuPerRequest)),
  };
  const ratio = median(results.map((r, i) => r.rps / bares[i]!.rps));
  const cpuRatio = median(results.map((r, i) => bares[i]!.cpuPerRequest / r.cpuPerRequest));
  return {
    base,
    r: {
      rps: ratio * base.rps,
      p99: median(results.map((r) => r.p99)),
      errors: results.reduce((n, r) => n + r.errors, 0),
      cpuPerRequest: base.cpuPerRequest / cpuRatio,
    },
  };
}

function verdict(one: Result, list: Result, baseline: Result): string {
  const okOne = one.rps >= 0.4 * baseline.rps && one.p99 < 10;
  const okList = list.rps >= 0.2 * baseline.rps;
  return `  targets (sqlite): single ≥40% with p99 <10 ms: ${okOne ? 'met' : 'NOT met'}; list ≥20%: ${okList ? 'met' : 'NOT met'}`;
}

async function main(): Promise<void> {
  console.log(
    `bench:api — ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} round(s), ${os.cpus().length} cores, ${process.version}`,
  );
  console.log('ratios: req/s against the bare route; bare CPU per request over ours (load-independent)');
  const kinds: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL) kinds.push('postgres');
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (ROUNDS > 1) console.log(`round ${i + 1}`);
    const r = await round(kinds, true);
    const sqlite = r.runs.find((x) => x.kind === 'sqlite')!;
    if (ROUNDS === 1) console.log(verdict(sqlite.one, sqlite.list, r.bare));
    rounds.push(r);
  }
  if (ROUNDS > 1) {
    console.log(`median of ${ROUNDS} rounds (ratios are medians of each round's own ratio)`);
    const bares = rounds.map((r) => r.bare);
    console.log(row('bare fastify GET', medianOf(bares, bares).base));
    const barePages = rounds.map((r) => r.barePage);
    for (const kind of kinds) {
      const of = (pick: 'one' | 'list') => rounds.map((r) => r.runs.find((x) => x.kind === kind)![pick]);
      const floors = rounds.map((r) => r.runs.find((x) => x.kind === kind)!.floor);
      if (floors.every((f) => f !== undefined)) {
        console.log(
          row(
            `(reference) bare + the 2 point reads`,
            medianOf(floors as Result[], bares).r,
            medianOf(floors as Result[], bares).base,
          ),
        );
      }
      const one = medianOf(of('one'), bares);
      const list = medianOf(of('list'), bares);
      console.log(row(`${kind}: GET /projects/{id}`, one.r, one.base));
      console.log(row(`${kind}: GET /calls?per_page=25 (10k rows)`, list.r, list.base));
      const againstPage = medianOf(of('list'), barePages);
      console.log(row(`  (reference) the list against the bare page`, againstPage.r, againstPage.base));
      if (kind === 'sqlite') console.log(verdict(one.r, list.r, one.base));
    }
  }
  const errors = rounds.flatMap((r) => [
    r.bare,
    r.barePage,
    ...r.runs.flatMap((x) => [x.one, x.list, ...(x.floor ? [x.floor] : [])]),
  ]);
  if (errors.some((e) => e.errors > 0)) process.exitCode = 1;
}

void main();
