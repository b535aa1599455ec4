// npm run bench:api — the API's throughput and tail latency next to a bare Fastify route measured
// in the same run. Every server runs in its own child process so autocannon (this process) does
// not share their event loops. Stores: SQLite always; PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL is set.
//
// Paired and interleaved. On a shared machine the bare route's own rate swings by half within
// seconds (seen: 26,000 to 56,000 req/s in consecutive 3 s runs), so a bare figure taken once at
// the start says little about the minutes that follow. Here all servers start together (an idle
// one costs nothing) and the load moves between them in short slices: bare, route A, bare, route B,
// bare, … Each route's slice is compared with the mean of the two bare slices on either side of it,
// and the printed ratio is the median of those paired ratios over BENCH_ROUNDS rounds (default 5)
// of BENCH_SECONDS-long slices (default 3). Server CPU time per request is reported beside req/s:
// it is the figure that moves least with the machine's load.
//
// Reference rows, printed beside the targets: a bare route answering a page of the list's size
// (~11 KB), which shows what writing those bytes alone costs, and (SQLite) a bare route making only
// the single GET's two point reads (the key by hash, the project), which shows what those reads
// alone cost. The targets are against the small bare route.
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

interface Slice {
  rps: number;
  p99: number;
  errors: number;
  /** Server CPU per request, µs. */
  cpuPerRequest: number;
}

interface Route {
  name: string;
  server: Running;
  url: string;
  key?: string;
  /** Compared against this route's slices instead of the bare route's (a second, printed ratio). */
  against?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const SLICE_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
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

async function load(route: Route, seconds: number): Promise<Slice> {
  const before = await route.server.cpu();
  const result = await autocannon({
    url: route.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: route.key ? { authorization: `Bearer ${route.key}` } : {},
  });
  const cpu = (await route.server.cpu()) - before;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One route's slices with the bare slices on either side of each. */
interface Pairs {
  slices: Slice[];
  /** Per slice: its req/s over the mean req/s of the bare slices before and after it. */
  ratios: number[];
  /** Per slice: the bare slices' mean CPU per request over its own. */
  cpuRatios: number[];
}

interface Summary {
  rps: number;
  ratio: number;
  p99: number;
  cpuPerRequest: number;
  cpuRatio: number;
  errors: number;
}

function summarize(p: Pairs): Summary {
  return {
    rps: median(p.slices.map((s) => s.rps)),
    ratio: median(p.ratios),
    p99: median(p.slices.map((s) => s.p99)),
    cpuPerRequest: median(p.slices.map((s) => s.cpuPerRequest)),
    cpuRatio: median(p.cpuRatios),
    errors: p.slices.reduce((n, s) => n + s.errors, 0),
  };
}

function row(name: string, s: Summary, baseline = false): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return (
    `${name.padEnd(44)} ${s.rps.toFixed(0).padStart(7)} req/s ${(baseline ? 'baseline' : pct(s.ratio)).padStart(8)}   ` +
    `p99 ${String(s.p99).padStart(4)} ms   cpu ${s.cpuPerRequest.toFixed(0).padStart(4)} µs/req ` +
    `${(baseline ? '' : pct(s.cpuRatio)).padStart(7)}   errors ${s.errors}`
  );
}

/** The targets (bare fastify, then the service on each store) and the routes measured on them. */
async function startRoutes(
  kinds: Array<'sqlite' | 'postgres'>,
): Promise<{ bare: Route; routes: Route[]; servers: Running[] }> {
  const bareServer = await startTarget('bare');
  const bare: Route = {
    name: 'bare fastify GET',
    server: bareServer,
    url: `http://127.0.0.1:${bareServer.target.port}/bare`,
  };
  const routes: Route[] = [
    {
      name: '(reference) bare, a 25-call page',
      server: bareServer,
      url: `http://127.0.0.1:${bareServer.target.port}/bare-page`,
    },
  ];
  const servers: Running[] = [bareServer];
  for (const kind of kinds) {
    const server = await startTarget(kind);
    servers.push(server);
    const { port, key, projectId, floorPort } = server.target;
    const base = `http://127.0.0.1:${port}/api/v1`;
    if (floorPort) {
      routes.push({
        name: '(reference) bare + the 2 point reads',
        server,
        url: `http://127.0.0.1:${floorPort}/floor/${projectId}`,
        key,
      });
    }
    routes.push(
      { name: `${kind}: GET /projects/{id}`, server, url: `${base}/projects/${projectId}`, key },
      {
        name: `${kind}: GET /calls?per_page=25 (10k rows)`,
        server,
        url: `${base}/calls?per_page=25`,
        key,
        against: '(reference) bare, a 25-call page',
      },
    );
  }
  return { bare, routes, servers };
}

/**
 * ROUNDS rounds of slices: each route's slice between two slices of the bare route, its ratios
 * taken against the mean of those two.
 */
async function measureRounds(
  bare: Route,
  routes: Route[],
): Promise<{ pairs: Map<string, Pairs>; bareSlices: Slice[] }> {
  const pairs = new Map<string, Pairs>(
    routes.map((r) => [r.name, { slices: [], ratios: [], cpuRatios: [] }]),
  );
  const bareSlices: Slice[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    process.stdout.write(`round ${round + 1}/${ROUNDS} `);
    let before = await load(bare, SLICE_SECONDS);
    bareSlices.push(before);
    for (const r of routes) {
      const slice = await load(r, SLICE_SECONDS);
      const after = await load(bare, SLICE_SECONDS);
      bareSlices.push(after);
      const p = pairs.get(r.name)!;
      p.slices.push(slice);
      p.ratios.push(slice.rps / ((before.rps + after.rps) / 2));
      p.cpuRatios.push((before.cpuPerRequest + after.cpuPerRequest) / 2 / slice.cpuPerRequest);
      before = after;
      process.stdout.write('.');
    }
    process.stdout.write('\n');
  }
  return { pairs, bareSlices };
}

async function main(): Promise<void> {
  const kinds: Array<'sqlite' | 'postgres'> = ['sqlite'];
  if (process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL) kinds.push('postgres');
  console.log(
    `bench:api — ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${SLICE_SECONDS} s slices, ` +
      `${os.cpus().length} cores, ${process.version}, stores: ${kinds.join(', ')}`,
  );
  console.log(
    'ratios: each slice against the bare slices either side of it, median over rounds; ' +
      'then bare CPU per request over ours (load-independent)',
  );

  const { bare, routes, servers } = await startRoutes(kinds);

  // Warm every route (JIT, store caches) before anything counts.
  for (const r of [bare, ...routes]) await load(r, 1);

  const { pairs, bareSlices } = await measureRounds(bare, routes);
  for (const s of servers) s.stop();

  const bareSummary = summarize({ slices: bareSlices, ratios: [], cpuRatios: [] });
  console.log(row(bare.name, bareSummary, true));
  const summaries = new Map<string, Summary>();
  for (const r of routes) {
    const s = summarize(pairs.get(r.name)!);
    summaries.set(r.name, s);
    console.log(row(r.name, s));
    if (r.against) {
      // The same slices against the bare page route's: ratios of ratios, slice by slice.
      const own = pairs.get(r.name)!;
      const ref = pairs.get(r.against)!;
      const against: Pairs = {
        slices: own.slices,
        ratios: own.ratios.map((x, i) => x / ref.ratios[i]!),
        cpuRatios: own.cpuRatios.map((x, i) => x / ref.cpuRatios[i]!),
      };
      console.log(row(`  (reference) the list against the bare page`, summarize(against)));
    }
  }
  const one = summaries.get('sqlite: GET /projects/{id}')!;
  const list = summaries.get('sqlite: GET /calls?per_page=25 (10k rows)')!;
  const okOne = one.ratio >= 0.4 && one.p99 < 10;
  const okList = list.ratio >= 0.2;
  console.log(
    `  targets (sqlite): single ≥40% with p99 <10 ms: ${okOne ? 'met' : 'NOT met'}; list ≥20%: ${okList ? 'met' : 'NOT met'}`,
  );
  const errors = bareSummary.errors + [...summaries.values()].reduce((n, s) => n + s.errors, 0);
  if (errors > 0) process.exitCode = 1;
}

void main();
