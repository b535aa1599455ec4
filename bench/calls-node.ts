// The calls benchmark's target (calls.bench.ts): the node the service runs (TelephonyNode and
// SessionHost on a SQLite file in WAL mode, the API beside them), with a project, a published
// speak + dtmf + hangup workflow, a trunk and our number routed to it, set up through the API.
import path from 'node:path';
import { buildApp } from '../src/api/app.js';
import { MemoryRateLimiter } from '../src/api/rate-limit/rate-limiter.js';
import { loadConfig } from '../src/config/config.js';
import { createWorkspace } from '../src/modules/workspaces/workspaces.service.js';
import { systemClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/logger.js';
import { migrateToLatest, openStore } from '../src/store/database.js';
import { TelephonyNode } from '../src/telephony/calls/node/telephony-node.js';
import type { OverloadLimits } from '../src/telephony/sip/overload.js';
import { createWiring } from '../src/wiring/wiring.js';
import { DIALLED, MENU_WORKFLOW as WORKFLOW } from './calls-scenarios.js';

export async function startNode(dataDir: string, options: { admission?: OverloadLimits } = {}) {
  const store = await openStore({ sqlitePath: path.join(dataDir, 'switchboard.db') });
  await migrateToLatest(store.db);
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://localhost:8080',
    RATE_LIMIT_PER_MINUTE: '100000',
    SIP_HOST: '127.0.0.1',
    SIP_DOMAIN: 'sip.bench',
    RTP_PORT_MIN: '20000',
    RTP_PORT_MAX: '29999',
    SWITCHBOARD_SECRET_KEY: 'bench-master-key',
  });
  const wiring = createWiring({ config, store, logger: silentLogger(), providers: { stt: null } });
  const { deps } = wiring;
  const node = await TelephonyNode.start({
    deps,
    sessions: wiring.sessionHost,
    port: 0,
    // sipp plays the carrier from 127.0.0.1: a trunk's address, exempt from the per-source flood
    // throttle as SIP_FLOOD_EXEMPT would make it, so the offered load is never capped below the
    // node's own limits. Admission limits: fixed far above capacity unless a part sets them.
    throttle: { ratePerSecond: 500, burst: 1000, exempt: ['127.0.0.1'] },
    admission: options.admission ?? { maxConcurrentCalls: 100_000, maxCallsPerSecond: 100_000 },
    tts: wiring.providers.tts,
    stt: wiring.providers.stt,
  });
  const { app } = await buildApp({
    wiring,
    rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute, systemClock),
    parts: { dialer: node.dialer },
  });
  const { workspace, apiKey } = await createWorkspace(deps, { name: 'bench' });
  const api = async (method: string, url: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await app.inject({
      method: method as 'POST',
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? (JSON.parse(res.body) as { data: Record<string, unknown> }).data : {};
  };
  const project = await api('POST', '/projects', { name: 'bench' });
  const workflow = await api('POST', '/workflows', {
    project_id: project.id,
    name: 'menu',
    graph: WORKFLOW,
  });
  await api('POST', `/workflows/${String(workflow.id)}/publish`);
  const trunk = await api('POST', '/sip-trunks', {
    name: 'carrier',
    provider: 'generic',
    termination_uri: 'sip:carrier.example.com',
    transport: 'udp',
    auth_username: 'bench',
    auth_password: 'bench-password',
  });
  const number = await api('POST', '/phone-numbers', {
    project_id: project.id,
    number: DIALLED,
    sip_trunk_id: trunk.id,
  });
  await api('PATCH', `/phone-numbers/${String(number.id)}`, {
    // CALLS_BENCH_RECORD=1 records every call (2-channel WAV under the data directory): run the
    // held part with and without it to see what recording costs.
    dispatch_rules: [
      { workflow_id: workflow.id, ...(process.env.CALLS_BENCH_RECORD === '1' ? { record: true } : {}) },
    ],
  });
  return {
    node,
    store,
    domain: `${workspace.sip_label}.${config.sip.domain}`,
    async close() {
      await node.close();
      await app.close();
      await wiring.close();
      await store.close();
    },
  };
}

export type BenchNode = Awaited<ReturnType<typeof startNode>>;
