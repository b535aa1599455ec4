// End-to-end: the API and a TelephonyNode on the wiring `serve` runs (wiring/wiring.ts), on SQLite with the real clock,
// SIP on a free port, RTP on a range of its own, for real sipp processes to call (sipp.ts); its
// world (project, trunk, number, published workflows) set up through the API, and the MENU
// workflow several suites publish.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { MemoryRateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { loadConfig } from '../../src/config/config.js';
import type { ServiceDeps } from '../../src/modules/context.js';
import type { Services } from '../../src/modules/services.js';
import type { SessionHost } from '../../src/modules/sessions/session-host.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import type { LiveBus } from '../../src/events/live-bus.js';
import { followLiveEvents } from '../../src/events/live-follow.js';
import type { TtsProvider } from '../../src/providers/tts/tts.types.js';
import { systemClock } from '../../src/shared/clock.js';
import { createLogger, silentLogger, type Logger } from '../../src/shared/logger.js';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';
import type { PhoneChannelFactory } from '../../src/telephony/calls/live/live-call.js';
import { TelephonyNode, type TelephonyNodeOptions } from '../../src/telephony/calls/node/telephony-node.js';
import type { Transferer } from '../../src/telephony/calls/transfer/transfer-context.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { createWiring, type Wiring } from '../../src/wiring/wiring.js';
import type { StoreKind } from './stores.js';

/** Parsed JSON from the API and the outbox, read loosely by the tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export interface CallNode {
  app: FastifyInstance;
  store: Store;
  deps: ServiceDeps;
  wiring: Wiring;
  node: TelephonyNode;
  sessions: SessionHost;
  /** The API's services (optional: suites that build a CallNode of their own may leave it out). */
  services?: Services;
  key: string;
  workspaceId: string;
  /** The request-URI host of this workspace (`<sip_label>.<SIP_DOMAIN>`). */
  sipDomain: string;
  sipPort: number;
  api(method: string, url: string, body?: unknown): Promise<{ status: number; data: Loose }>;
  close(): Promise<void>;
}

export interface CallNodeOptions {
  config?: Record<string, string>;
  /** Default: SQLite in memory. */
  store?: StoreKind;
  tts?: TtsProvider;
  newChannel?: PhoneChannelFactory;
  drainLimitMs?: number;
  /**
   * Listening as `serve` configures it (configuredStt: stt_vendor_1 when `config` names its key or
   * base URL); by default the node runs without STT.
   */
  configuredStt?: boolean;
  /** Default: the node's own (REFER and warm transfers, announcements in espeak-ng's `en`). */
  transferer?: Transferer;
  /** Live events with other nodes, wired as `serve` wires them (the node does not close it). */
  liveBus?: LiveBus;
  /** Trunk registration and OPTIONS timing (TelephonyNodeOptions.trunks). */
  trunks?: TelephonyNodeOptions['trunks'];
  /** SIP over TLS too (TelephonyNodeOptions.tls: port 0 for a free one, certificate and key). */
  tls?: TelephonyNodeOptions['tls'];
  /** Outbound TLS trust (TelephonyNodeOptions.tlsClient): a test registrar's own certificate. */
  tlsClient?: TelephonyNodeOptions['tlsClient'];
  /** Where outbound INVITEs to a termination host go (a carrier's host name pointed at sipp). */
  resolve?: TelephonyNodeOptions['resolve'];
  /** The DNS client of the node's RFC 3263 resolver (when `resolve` is not given). */
  dns?: TelephonyNodeOptions['dns'];
  /** SIP timers (T1…): short ones make a transaction's timeout come soon. */
  timers?: TelephonyNodeOptions['timers'];
  /** Default: silent (CALL_LOGS=1: debug on stderr). A test that reads the log passes its own. */
  logger?: Logger;
}

let rtpBase = 30000 + (process.pid % 50) * 400;

export async function startCallNode(options: CallNodeOptions = {}): Promise<CallNode> {
  let store: Store;
  if (options.store) store = await options.store.open();
  else {
    store = await openStore({ sqlitePath: ':memory:' });
    await migrateToLatest(store.db);
  }
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://localhost:8080',
    RATE_LIMIT_PER_MINUTE: '100000',
    SIP_HOST: '127.0.0.1',
    SIP_DOMAIN: 'sip.test',
    SWITCHBOARD_SECRET_KEY: 'test-master-key',
    // MEDIA_WORKERS=0 runs the call tests with the media on the main thread (default: workers).
    ...(process.env.MEDIA_WORKERS !== undefined ? { MEDIA_WORKERS: process.env.MEDIA_WORKERS } : {}),
    ...options.config,
  });
  const wiring = createWiring({
    config,
    store,
    logger: options.logger ?? (process.env.CALL_LOGS ? createLogger('debug') : silentLogger()),
    providers: {
      ...(options.tts ? { tts: options.tts } : {}),
      ...(options.configuredStt ? {} : { stt: null }),
    },
  });
  const { deps, sessionHost: sessions } = wiring;
  // Each node its own RTP range, so parallel files never hand out the same port.
  const min = rtpBase;
  rtpBase += 200;
  const node = await TelephonyNode.start({
    deps,
    sessions,
    port: 0,
    // Fixed and generous: a loaded test machine must not make the derived limits refuse calls.
    admission: { maxConcurrentCalls: 10_000, maxCallsPerSecond: 10_000 },
    ports: new RtpPortAllocator(min, min + 199),
    tts: wiring.providers.tts,
    stt: wiring.providers.stt,
    ...(options.transferer ? { transferer: options.transferer } : {}),
    ...(options.newChannel ? { newChannel: options.newChannel } : {}),
    ...(options.drainLimitMs !== undefined ? { drainLimitMs: options.drainLimitMs } : {}),
    ...(options.trunks !== undefined ? { trunks: options.trunks } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.dns ? { dns: options.dns } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.tlsClient ? { tlsClient: options.tlsClient } : {}),
  });
  const { app, services } = await buildApp({
    wiring,
    rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute, systemClock),
    parts: { dialer: node.dialer, ...(options.liveBus ? { liveEvents: options.liveBus } : {}) },
  });
  if (options.liveBus) {
    followLiveEvents(options.liveBus, {
      sessions,
      calls: node.dialer,
      dispatch: deps.dispatchCache,
      logger: deps.logger,
    });
  }
  const { workspace, apiKey } = await createWorkspace(deps, { name: 'e2e' });
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, data: res.body ? JSON.parse(res.body) : undefined };
  };
  let closed = false;
  return {
    app,
    store,
    deps,
    wiring,
    node,
    sessions,
    services,
    key: apiKey,
    workspaceId: workspace.id,
    sipDomain: `${workspace.sip_label}.${config.sip.domain}`,
    sipPort: node.address.udp,
    api,
    async close() {
      if (closed) return;
      closed = true;
      await node.close();
      await app.close();
      await wiring.close();
      await store.close();
    },
  };
}

/** Project, trunk (termination at `termination`), number and published workflows through the API. */
export async function telephonyWorld(
  n: CallNode,
  options: {
    number: string;
    /** Default: generic (carrier_a takes only its own termination hosts). */
    provider?: 'carrier_a' | 'generic';
    termination?: string;
    password?: string;
    /** The workflows to publish, or a function of the new project's id that makes them (agents first). */
    graphs: Record<string, unknown> | ((projectId: string) => Promise<Record<string, unknown>>);
    rules?: (ids: Record<string, string>) => unknown[];
  },
): Promise<{ projectId: string; trunkId: string; numberId: string; workflows: Record<string, string> }> {
  const must = (r: { status: number; data: Loose }, status: number) => {
    if (r.status !== status) throw new Error(`${r.status}: ${JSON.stringify(r.data)}`);
    return r.data.data;
  };
  const projectId = must(await n.api('POST', '/projects', { name: 'calls' }), 201).id as string;
  const workflows: Record<string, string> = {};
  const graphs = typeof options.graphs === 'function' ? await options.graphs(projectId) : options.graphs;
  for (const [name, graph] of Object.entries(graphs)) {
    const wf = must(await n.api('POST', '/workflows', { project_id: projectId, name, graph }), 201);
    must(await n.api('POST', `/workflows/${wf.id}/publish`), 200);
    workflows[name] = wf.id as string;
  }
  const trunk = must(
    await n.api('POST', '/sip-trunks', {
      name: 'sipp',
      provider: options.provider ?? 'generic',
      termination_uri: options.termination ?? 'sip:127.0.0.1:5999',
      auth_username: 'switchboard',
      auth_password: options.password ?? 'sipp-secret-1',
      transport: 'udp',
    }),
    201,
  );
  const rules = options.rules?.(workflows) ?? [{ workflow_id: Object.values(workflows)[0] }];
  const number = must(
    await n.api('POST', '/phone-numbers', {
      number: options.number,
      sip_trunk_id: trunk.id,
      project_id: projectId,
    }),
    201,
  );
  must(await n.api('PATCH', `/phone-numbers/${number.id}`, { dispatch_rules: rules }), 200);
  return { projectId, trunkId: trunk.id as string, numberId: number.id as string, workflows };
}

/** Speak, collect one digit (1: the `sales` branch, else `support`), speak, hang up. */
export const MENU = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Welcome to the test line.' } },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Press 1 for sales or 2 for support.',
        num_digits: 1,
        timeout_seconds: 30,
        save_to_variable: 'choice',
      },
    },
    {
      id: 'route',
      type: 'condition',
      config: { branches: [{ handle: 'sales', expression: "choice == '1'" }] },
    },
    { id: 'sales', type: 'speak', config: { text: 'Sales it is.' } },
    { id: 'support', type: 'speak', config: { text: 'Support it is.' } },
    { id: 'silence', type: 'speak', config: { text: 'We did not hear you.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'route' },
    { source: 'ask', source_handle: 'timeout', target: 'silence' },
    { source: 'route', source_handle: 'sales', target: 'sales' },
    { source: 'route', target: 'support' },
    { source: 'sales', target: 'bye' },
    { source: 'support', target: 'bye' },
    { source: 'silence', target: 'bye' },
  ],
};
