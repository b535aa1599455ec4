// Builds the whole API on a real store for integration tests: app.inject(), a fake clock,
// and helpers to make workspaces and call routes with a key.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/api/rate-limit/rate-limiter.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { ServiceDeps } from '../../src/modules/context.js';
import type { Services } from '../../src/modules/services.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { FakeClock, type Clock } from '../../src/shared/clock.js';
import type { SessionHost } from '../../src/modules/sessions/session-host.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Store } from '../../src/store/database.js';
import { createWiring, type Providers, type ServiceParts, type Wiring } from '../../src/wiring/wiring.js';
import type { StoreKind } from './stores.js';

export interface TestApi {
  app: FastifyInstance;
  store: Store;
  clock: FakeClock;
  /** The parts the app runs on, wired as `serve` wires them. */
  wiring: Wiring;
  deps: ServiceDeps;
  services: Services;
  /** Runs the sessions joined through this app. */
  sessionHost: SessionHost;
  /** The app's metrics, when asked for. */
  metrics: Metrics | null;
  /** A workspace with an all-scopes key. */
  key: string;
  workspaceId: string;
  newWorkspace(name?: string): Promise<{ key: string; workspaceId: string }>;
  call(method: string, url: string, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  rawBody?: string;
}

export type Reply = LightMyRequestResponse & { body: string; data: unknown };

export interface TestApiOptions {
  config?: Partial<Config>;
  rateLimiter?: RateLimiter;
  overrides?: ServiceParts;
  clock?: FakeClock;
  /** Runs joined sessions on this clock (e.g. the real one for socket tests) instead of the fake. */
  sessionClock?: Clock;
  /** Instead of the configured providers (fake TTS and STT for voice over WebRTC). */
  providers?: Partial<Providers>;
  /** Serve GET /metrics as `serve` does. */
  metrics?: boolean;
}

export async function startTestApi(kind: StoreKind, options: TestApiOptions = {}): Promise<TestApi> {
  const store = await kind.open();
  const clock = options.clock ?? new FakeClock('2026-11-02T10:00:00Z');
  const config: Config = {
    ...loadConfig({
      PUBLIC_BASE_URL: 'http://localhost:8080',
      RATE_LIMIT_PER_MINUTE: '100000',
      SWITCHBOARD_SECRET_KEY: 'test-master-key',
    }),
    ...options.config,
  };
  const wiring = createWiring({
    config,
    store,
    logger: silentLogger(),
    clock,
    ...(options.sessionClock ? { sessionClock: options.sessionClock } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
  });
  const { deps, sessionHost } = wiring;
  const metrics = options.metrics ? createMetrics({ db: deps.db, clock, nodeId: config.nodeId }) : null;
  const { app, services } = await buildApp({
    ...(metrics ? { metrics } : {}),
    wiring,
    rateLimiter: options.rateLimiter ?? new MemoryRateLimiter(config.rateLimitPerMinute, clock),
    ...(options.overrides ? { parts: options.overrides } : {}),
  });
  const newWorkspace = async (name = 'test') => {
    const { workspace, apiKey } = await createWorkspace(deps, { name, ownerEmail: 'owner@example.test' });
    return { key: apiKey, workspaceId: workspace.id };
  };
  const first = await newWorkspace();

  const call = async (method: string, url: string, opts: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? first.key : opts.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await app.inject({ method: method as 'GET', url, headers, payload });
    let data: unknown = undefined;
    try {
      data = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      data = undefined;
    }
    return Object.assign(res, { data });
  };

  return {
    app,
    store,
    clock,
    wiring,
    deps,
    services,
    sessionHost,
    metrics,
    key: first.key,
    workspaceId: first.workspaceId,
    newWorkspace,
    call,
    async close() {
      await app.close();
      metrics?.close();
      await wiring.close();
      await store.close();
    },
  };
}
