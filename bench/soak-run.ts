// The soak (npm run soak, soak.ts): the service under API requests, web sessions, calls and webhook
// deliveries together for a long time, its heap sampled after garbage collection, then a count of
// what was lost: a call or session left non-final, an event never delivered or delivered more often
// than it was attempted, a request answered outside what it expects, a call or session that failed.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { loadConfig } from '../src/config/config.js';
import { FINAL_CALL_STATUSES, type CallStatus } from '../src/modules/calls/calls.schema.js';
import { openConfiguredStore } from '../src/store/configured-store.js';
import type { Store } from '../src/store/database.js';
import { freeUdpPort } from './calls-sipp.js';
import {
  apiClient,
  driveApi,
  driveCalls,
  driveSessions,
  setUp,
  type ApiResult,
  type CallsResult,
  type SessionsResult,
  type SoakSetup,
} from './soak-load.js';

export interface SoakOptions {
  seconds: number;
  /** How often the heap is sampled after GC. */
  sampleSeconds: number;
  callsPerSecond: number;
  apiPerSecond: number;
  sessionsPerSecond: number;
  /** PostgreSQL instead of the embedded SQLite file. */
  databaseUrl?: string;
  /** One progress line per sample. */
  progress: (line: string) => void;
}

/** The service under soak: started from an environment, its heap read after GC, stopped gracefully. */
export interface SoakService {
  banner: string;
  heapAfterGc(): Promise<number>;
  stop(): Promise<void>;
}

export type StartService = (env: Record<string, string>) => Promise<SoakService>;

export interface HeapSample {
  atSeconds: number;
  bytes: number;
}

export interface SoakReport {
  seconds: number;
  heap: HeapSample[];
  /** The heap's growth over the steady part of the run (heapEnds), in percent. */
  heapGrowthPercent: number;
  api: ApiResult;
  sessions: SessionsResult;
  calls: Omit<CallsResult, 'run'>;
  webhooks: { events: number; received: number; undelivered: number; overDelivered: number };
  nonFinal: { calls: number; sessions: number };
  /** Calls in the store by `status/hangup_reason`. */
  callOutcomes: Record<string, number>;
  /** Overload control's refusals by reason and its last limits (`refused:<reason>`, `limit:<name>`). */
  overload: Record<string, number>;
  /** Every way something was lost or failed, summed: 0 for a clean soak. */
  lost: number;
}

interface Receiver {
  url: string;
  /** Requests received per event id. */
  byEvent: Map<string, number>;
  total: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const byEvent = new Map<string, number>();
  const r = { byEvent, total: 0 } as Receiver;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      r.total++;
      const id = (JSON.parse(body) as { id: string }).id;
      byEvent.set(id, (byEvent.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  r.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

async function freeTcpPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)]!;
}

async function pendingDeliveries(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The heap at the start and at the end of the steady part of the run. The first fifth is warm-up
 * (the prompt cache, the statement caches and the JIT fill as the first calls and requests come),
 * so the baseline is the median of the three samples after it, the end the median of the last three
 * (one each in a short run), so one collection's noise moves nothing.
 */
export function heapEnds(heap: HeapSample[]): { first: number; last: number } {
  const warm = heap.slice(Math.floor(heap.length / 5));
  const window = Math.max(1, Math.min(3, Math.floor(warm.length / 3)));
  return {
    first: median(warm.slice(0, window).map((h) => h.bytes)),
    last: median(warm.slice(-window).map((h) => h.bytes)),
  };
}

/**
 * What overload control did, from the node's own metrics (read over loopback before it stops):
 * INVITEs refused by reason, and the limits it last held.
 */
async function overloadFigures(url: string): Promise<Record<string, number>> {
  const text = await fetch(url).then((r) => r.text());
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(switchboard_calls_refused_total|switchboard_admission_limit)\{(\w+)="([^"]+)"\} (\S+)$/.exec(
      line,
    );
    if (m) out[`${m[1] === 'switchboard_admission_limit' ? 'limit' : 'refused'}:${m[3]}`] = Number(m[4]);
  }
  return out;
}

/** What the store says once the service has stopped. */
async function audit(store: Store, setup: SoakSetup, receiver: Receiver) {
  const calls = await store.db
    .selectFrom('calls')
    .select(['status', 'hangup_reason'])
    .where('project_id', '=', setup.projectId)
    .execute();
  const sessions = await store.db
    .selectFrom('sessions')
    .select('status')
    .where('project_id', '=', setup.projectId)
    .execute();
  const deliveries = await store.db
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'status', 'attempt_count'])
    .where('endpoint_id', '=', setup.endpointId)
    .execute();
  const events = await store.db
    .selectFrom('webhook_events')
    .select('id')
    .where('project_id', '=', setup.projectId)
    .execute();
  const delivered = new Map(deliveries.map((d) => [d.event_id, d]));
  let undelivered = 0;
  let overDelivered = 0;
  for (const { id } of events) {
    const d = delivered.get(id);
    const got = receiver.byEvent.get(id) ?? 0;
    if (!d || d.status !== 'succeeded' || got === 0) undelivered++;
    // Each attempt reaches the receiver once; more arrivals than attempts is a double delivery.
    else if (got > d.attempt_count) overDelivered++;
  }
  const outcomes: Record<string, number> = {};
  for (const c of calls) {
    const k = `${c.status}/${c.hangup_reason ?? '-'}`;
    outcomes[k] = (outcomes[k] ?? 0) + 1;
  }
  return {
    callOutcomes: outcomes,
    webhooks: { events: events.length, received: receiver.total, undelivered, overDelivered },
    nonFinal: {
      calls: calls.filter((c) => !FINAL_CALL_STATUSES.includes(c.status as CallStatus)).length,
      sessions: sessions.filter((s) => s.status !== 'ended').length,
    },
  };
}

/** The service's environment: loopback ports, a data directory of its own, limits out of the way. */
function serviceEnv(
  dataDir: string,
  httpPort: number,
  sipPort: number,
  databaseUrl: string | undefined,
): Record<string, string> {
  const rtpMin = 30000 + (process.pid % 50) * 200;
  return {
    SWITCHBOARD_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(httpPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${httpPort}`,
    SIP_HOST: '127.0.0.1',
    SIP_PORT: String(sipPort),
    SIP_DOMAIN: 'soak.test',
    RTP_PORT_MIN: String(rtpMin),
    RTP_PORT_MAX: String(rtpMin + 1999),
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'error',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

export async function runSoak(options: SoakOptions, start: StartService): Promise<SoakReport> {
  const dataDir = mkdtempSync(`${tmpdir()}/soak-`);
  const receiver = await startReceiver();
  const httpPort = await freeTcpPort();
  const sipPort = await freeUdpPort();
  const env = serviceEnv(dataDir, httpPort, sipPort, options.databaseUrl);
  const service = await start(env);
  const { store } = await openConfiguredStore(loadConfig(env));
  let stopped = false;
  try {
    const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(service.banner)?.[0];
    const domain = /SIP address: +sip:(\S+)/.exec(service.banner)?.[1];
    if (!key || !domain) throw new Error(`no key or SIP address in the banner:\n${service.banner}`);
    const api = apiClient(`http://127.0.0.1:${httpPort}`, key);
    const setup = await setUp(api, receiver.url);

    const began = performance.now();
    const apiLoad = driveApi(api, options.apiPerSecond);
    const sessionLoad = driveSessions(api, setup, options.sessionsPerSecond);
    const callLoad = driveCalls(`127.0.0.1:${sipPort}`, domain, options.callsPerSecond, options.seconds);
    const heap: HeapSample[] = [];
    const elapsed = () => (performance.now() - began) / 1000;
    const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
    while (elapsed() < options.seconds) {
      const wait = Math.min(options.sampleSeconds, options.seconds - elapsed());
      await new Promise((r) => setTimeout(r, wait * 1000));
      const bytes = await service.heapAfterGc();
      heap.push({ atSeconds: Math.round(elapsed()), bytes });
      options.progress(
        `[${clock(elapsed())}/${clock(options.seconds)}] heap after GC ${(bytes / 2 ** 20).toFixed(1)} MiB · ` +
          `webhooks received ${receiver.total}`,
      );
    }
    const apiResult = await apiLoad.stop();
    const sessionResult = await sessionLoad.stop();
    options.progress('load stopped: waiting for the last calls and webhook deliveries');
    const { run, ...calls } = await callLoad;
    if (run.code !== 0) options.progress(`sipp exited ${run.code}:\n${run.out.slice(-4000)}`);
    for (let i = 0; i < 240 && (await pendingDeliveries(store)) > 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const overload = await overloadFigures(`http://127.0.0.1:${httpPort}/metrics`);
    await service.stop();
    stopped = true;
    const audited = await audit(store, setup, receiver);
    const { first, last } = heapEnds(heap);
    const lost =
      apiResult.unexpected +
      sessionResult.failed +
      calls.failed +
      (calls.offered - calls.succeeded - calls.failed) +
      audited.webhooks.undelivered +
      audited.webhooks.overDelivered +
      audited.nonFinal.calls +
      audited.nonFinal.sessions;
    return {
      seconds: options.seconds,
      heap,
      heapGrowthPercent: ((last - first) / first) * 100,
      api: apiResult,
      sessions: sessionResult,
      calls,
      ...audited,
      overload,
      lost,
    };
  } finally {
    if (!stopped) await service.stop().catch(() => undefined);
    await store.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The report as the command prints it. */
export function formatReport(r: SoakReport): string {
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const lines = [
    `soak: ${r.seconds} s of API requests, web sessions, calls and webhooks together`,
    `  heap after GC: ${r.heap.map((h) => `${h.atSeconds}s ${mib(h.bytes)}`).join(', ')}`,
    `  heap growth  : ${r.heapGrowthPercent.toFixed(1)}% (after the first fifth's warm-up: the last samples against the first; target < 5%)`,
    `  API          : ${r.api.requests} requests, ${r.api.unexpected} unexpected answers` +
      (r.api.examples.length ? ` (${r.api.examples.join('; ')})` : '') +
      `, ${r.api.skipped} owed while eight were unanswered`,
    `  web sessions : ${r.sessions.minted} minted, ${r.sessions.completed} completed, ${r.sessions.failed} failed` +
      (r.sessions.examples.length ? ` (${r.sessions.examples.join('; ')})` : ''),
    `  calls        : ${r.calls.offered} offered by sipp, ${r.calls.succeeded} completed, ${r.calls.failed} failed; ` +
      `in the store: ${Object.entries(r.callOutcomes)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')}`,
    `  webhooks     : ${r.webhooks.events} events, ${r.webhooks.received} requests received, ` +
      `${r.webhooks.undelivered} undelivered, ${r.webhooks.overDelivered} delivered more often than attempted`,
    `  overload     : ${
      Object.entries(r.overload)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'nothing refused'
    }`,
    `  left open    : ${r.nonFinal.calls} calls and ${r.nonFinal.sessions} sessions not final after shutdown`,
    `  verdict      : ${r.lost === 0 ? 'nothing lost' : `${r.lost} lost or failed`}; heap ${
      r.heapGrowthPercent < 5 ? 'steady' : 'GROWING'
    }`,
  ];
  return lines.join('\n');
}
