// The soak's load (soak-run.ts): the set-up a user would make through the API (a project, a
// speak + dtmf + hangup workflow, a trunk, a number, a webhook endpoint), then three drivers that
// run side by side until told to stop: the API at a steady request rate, web sessions over the
// realtime socket (each presses 1 and is hung up by the workflow), and sipp calling in (each call
// plays audio, presses 1 and is hung up by the workflow).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import WebSocket from 'ws';
import { HOLD_SCENARIO, MENU_WORKFLOW } from './calls-scenarios.js';
import { runSipp, sippArgs, stat, type SippRun } from './calls-sipp.js';

export const SOAK_NUMBER = '+14155550177';

export interface Api {
  (method: string, url: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }>;
}

export function apiClient(base: string, key: string): Api {
  return async (method, url, body) => {
    const res = await fetch(`${base}/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as { data?: Record<string, unknown> }) : {};
    return { status: res.status, data: parsed.data ?? {} };
  };
}

async function must(api: Api, method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await api(method, url, body);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.data)}`);
  return res.data;
}

export interface SoakSetup {
  projectId: string;
  workflowId: string;
  endpointId: string;
}

export async function setUp(api: Api, receiverUrl: string): Promise<SoakSetup> {
  const project = await must(api, 'POST', '/projects', { name: 'soak' });
  const workflow = await must(api, 'POST', '/workflows', {
    project_id: project.id,
    name: 'menu',
    graph: MENU_WORKFLOW,
  });
  await must(api, 'POST', `/workflows/${String(workflow.id)}/publish`);
  const trunk = await must(api, 'POST', '/sip-trunks', {
    name: 'carrier',
    provider: 'generic',
    termination_uri: 'sip:carrier.example.com',
    transport: 'udp',
    auth_username: 'soak',
    auth_password: 'soak-password',
  });
  const number = await must(api, 'POST', '/phone-numbers', {
    project_id: project.id,
    number: SOAK_NUMBER,
    sip_trunk_id: trunk.id,
  });
  await must(api, 'PATCH', `/phone-numbers/${String(number.id)}`, {
    dispatch_rules: [{ workflow_id: workflow.id }],
  });
  const endpoint = await must(api, 'POST', '/webhook-endpoints', {
    project_id: project.id,
    url: receiverUrl,
    events: ['call.started', 'call.ended', 'session.ended', 'workflow.completed', 'workflow.failed'],
  });
  return { projectId: String(project.id), workflowId: String(workflow.id), endpointId: String(endpoint.id) };
}

/** A driver runs until `stop`, whose promise resolves once its work in flight has finished. */
export interface Driver<R> {
  stop(): Promise<R>;
}

/** Starts `start()` every 1/rate seconds, at most `maxInFlight` at once (a start past it is counted as skipped). */
function paced<R>(
  rate: number,
  maxInFlight: number,
  start: () => Promise<void>,
  result: () => R,
): Driver<R & { skipped: number }> {
  let inFlight = 0;
  let skipped = 0;
  let started = 0;
  const settled: Array<() => void> = [];
  const startedAt = performance.now();
  const tick = setInterval(() => {
    // Catch up to the schedule: a late timer starts what it owes, so the rate holds on a busy machine.
    const owed = Math.floor(((performance.now() - startedAt) / 1000) * rate) - started;
    for (let i = 0; i < owed; i++) {
      started++;
      if (inFlight >= maxInFlight) {
        skipped++;
        continue;
      }
      inFlight++;
      void start().finally(() => {
        inFlight--;
        if (inFlight === 0) settled.splice(0).forEach((r) => r());
      });
    }
  }, 20);
  return {
    async stop() {
      clearInterval(tick);
      if (inFlight > 0) await new Promise<void>((r) => settled.push(r));
      return { ...result(), skipped };
    },
  };
}

export interface ApiResult {
  requests: number;
  /** Answers outside the statuses each request expects (a 500, a 429, a refused create). */
  unexpected: number;
  examples: string[];
  /** Requests the schedule owed while eight were already unanswered. */
  skipped: number;
}

/**
 * What a dashboard and an integration do: create projects, read, rename and delete them, read the
 * lists. One request per tick, up to eight in flight; a read of a project deleted meanwhile may
 * answer 404, every other answer must be the one the request expects.
 */
export function driveApi(api: Api, rate: number): Driver<ApiResult> {
  const r = { requests: 0, unexpected: 0, examples: [] as string[] };
  const live: string[] = [];
  const deleted = new Set<string>();
  let n = 0;
  const pick = () => live[Math.floor(Math.random() * live.length)];
  const kinds: Array<() => Promise<[string, number, number, string?]>> = [
    async () => {
      const res = await api('POST', '/projects', { name: `soak ${n}` });
      if (typeof res.data.id === 'string') live.push(res.data.id);
      return ['POST /projects', res.status, 201];
    },
    async () => {
      const id = pick();
      return ['GET /projects/{id}', id ? (await api('GET', `/projects/${id}`)).status : 200, 200, id];
    },
    async () => {
      const id = pick();
      const status = id ? (await api('PATCH', `/projects/${id}`, { name: `soak ${n} renamed` })).status : 200;
      return ['PATCH /projects/{id}', status, 200, id];
    },
    async () => ['GET /projects', (await api('GET', '/projects?per_page=25')).status, 200],
    async () => ['GET /calls', (await api('GET', '/calls?per_page=25')).status, 200],
    async () => ['GET /sessions', (await api('GET', '/sessions?per_page=25')).status, 200],
    async () => {
      // Keeps about twenty projects alive: the store grows no more than the dashboard's user would.
      const id = live.length > 20 ? live.shift() : undefined;
      if (!id) return ['GET /usage', (await api('GET', '/usage')).status, 200];
      deleted.add(id);
      return ['DELETE /projects/{id}', (await api('DELETE', `/projects/${id}`)).status, 204];
    },
  ];
  return paced(
    rate,
    8,
    async () => {
      const kind = kinds[n++ % kinds.length]!;
      r.requests++;
      try {
        const [what, status, want, id] = await kind();
        const raced = status === 404 && id !== undefined && deleted.has(id);
        if (status !== want && !raced) {
          r.unexpected++;
          if (r.examples.length < 5) r.examples.push(`${what}: ${status}`);
        }
      } catch (err) {
        r.unexpected++;
        if (r.examples.length < 5) r.examples.push(String(err));
      }
    },
    () => r,
  );
}

export interface SessionsResult {
  minted: number;
  completed: number;
  failed: number;
  examples: string[];
  /** Sessions the schedule owed while 200 were already live. */
  skipped: number;
}

/** One web session: mint, join, press 1 when the menu asks, and wait for the workflow's end. */
async function oneSession(api: Api, setup: SoakSetup): Promise<string | null> {
  const res = await api('POST', '/sessions', { project_id: setup.projectId, workflow_id: setup.workflowId });
  if (res.status !== 201) return `POST /sessions: ${res.status}`;
  const url = `${String(res.data.realtime_url)}?token=${encodeURIComponent(String(res.data.join_token))}`;
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => {
      ws.terminate();
      resolve('no end within 60 s');
    }, 60_000);
    const finish = (why: string | null) => {
      clearTimeout(timer);
      ws.close();
      resolve(why);
    };
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as {
        type: string;
        event?: string;
        node_type?: string;
        end_reason?: string;
      };
      if (frame.type === 'node' && frame.event === 'entered' && frame.node_type === 'dtmf') {
        ws.send(JSON.stringify({ type: 'dtmf', digits: '1' }));
      }
      if (frame.type === 'ended')
        finish(frame.end_reason === 'completed' ? null : `ended ${frame.end_reason}`);
      if (frame.type === 'error') finish(`error frame ${String(raw)}`);
    });
    ws.on('error', (err) => finish(String(err)));
  });
}

export function driveSessions(api: Api, setup: SoakSetup, rate: number): Driver<SessionsResult> {
  const r = { minted: 0, completed: 0, failed: 0, examples: [] as string[] };
  return paced(
    rate,
    200,
    async () => {
      r.minted++;
      const why = await oneSession(api, setup).catch((err: unknown) => String(err));
      if (why === null) r.completed++;
      else {
        r.failed++;
        if (r.examples.length < 5) r.examples.push(why);
      }
    },
    () => r,
  );
}

export interface CallsResult {
  offered: number;
  succeeded: number;
  failed: number;
  run: SippRun;
}

/** sipp calling in at `rate` for `seconds`: each call plays g711a audio, presses 1 and is hung up by us. */
export function driveCalls(
  sipTarget: string,
  domain: string,
  rate: number,
  seconds: number,
): Promise<CallsResult> {
  const calls = Math.max(1, Math.round(rate * seconds));
  const dir = mkdtempSync(`${tmpdir()}/soak-calls-`);
  const scenario = HOLD_SCENARIO.replaceAll('__DOMAIN__', domain).replaceAll('+14155550100', SOAK_NUMBER);
  // sipp's own deadline (the benchmark's 300 s) would cut a long soak short: the run's length and
  // two minutes for the last calls instead.
  const args = sippArgs(sipTarget, scenario, dir, rate, calls);
  args[args.indexOf('-timeout') + 1] = `${Math.ceil(seconds) + 120}s`;
  return runSipp(args, dir).then((run) => ({
    offered: calls,
    succeeded: stat(run.out, 'Successful call'),
    failed: stat(run.out, 'Failed call'),
    run,
  }));
}
