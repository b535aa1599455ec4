// Runs the chosen role on the service's parts (built by wiring/wiring.ts):
//   all (default): API + webhook worker + SIP (calls running workflows) in one process
//   api | worker | sip: one part, for scaling out on PostgreSQL + Redis.
// On an empty store it creates the `default` workspace and prints its key once.
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './api/app.js';
import { MemoryRateLimiter, type RateLimiter } from './api/rate-limit/rate-limiter.js';
import { RedisRateLimiter } from './api/rate-limit/redis-rate-limiter.js';
import type { Config } from './config/config.js';
import { AddressPolicy } from './events/address-policy.js';
import { createOwnerNotifier } from './events/owner-notifier.js';
import { createGuardedAgent } from './events/ssrf-guard.js';
import { followLiveEvents } from './events/live-follow.js';
import { createLiveBus } from './events/redis-live-bus.js';
import { WebhookWorker } from './events/webhook-worker.js';
import type { ServiceDeps } from './modules/context.js';
import { RecordingsService } from './modules/recordings/recordings.service.js';
import { recoverRecordings } from './modules/recordings/recovery.js';
import { expireUnjoinedSessions } from './modules/sessions/session-lifecycle.js';
import { anyWorkspace, createWorkspace } from './modules/workspaces/workspaces.service.js';
import { systemClock } from './shared/clock.js';
import { createLogger, type Logger } from './shared/logger.js';
import type { Role } from './config/roles.js';
import { openConfiguredStore, SQLITE_FILE } from './store/configured-store.js';
import { closeStaleCalls } from './modules/calls/call-sweep.js';
import { TelephonyNode } from './telephony/calls/node/telephony-node.js';
import type { Transferer } from './telephony/calls/transfer/transfer-context.js';
import type { Store } from './store/database.js';
import { createWiring, type ServiceParts, type Wiring } from './wiring/wiring.js';
import { createMetrics } from './ops/metrics.js';
import { buildOpsApp } from './api/ops-app.js';
import { startTracing } from './ops/tracing.js';
import { watchKeyEpoch } from './modules/api-keys/key-epoch.js';
import { speechStatus, type SpeechStatus } from './providers/speech-status.js';
import { dashboardBuilt, defaultDashboardDir } from './web-serving/dashboard.js';

export type { Role } from './config/roles.js';

/** How often unjoined sessions past their join token's expiry are ended. */
const SESSION_SWEEP_MS = 60_000;

/** How long shutdown waits for requests, deliveries and calls in flight before giving up. */
export const SHUTDOWN_GRACE_MS = 30_000;

/**
 * On an empty store: the `default` workspace, its key printed once to stdout. Returns the key, for
 * the dashboard's sign-in link in the banner; null on later starts.
 */
async function firstRun(
  deps: ServiceDeps,
  config: Config,
  out: NodeJS.WritableStream,
): Promise<string | null> {
  if (await anyWorkspace(deps)) return null;
  const { workspace, apiKey } = await createWorkspace(deps, { name: 'default' });
  out.write(
    [
      '',
      'Created workspace "default" (first start). Its API key, shown only this once:',
      '',
      `  ${apiKey}`,
      '',
      `  workspace id:  ${workspace.id}`,
      `  SIP address:   sip:${workspace.sip_label}.${config.sip.domain} (the origination_uri host of its trunks)`,
      '',
    ].join('\n') + '\n',
  );
  return apiKey;
}

export interface RunningService {
  close(): Promise<void>;
}

/**
 * Shutdown runs the parts' closers phase by phase, whatever order they started in: SIP first (new
 * INVITEs get 503 while calls finish, up to the drain limit), then the API (no new work), then the
 * worker (deliveries in flight), then the live-event bus, the session host and the providers
 * (wiring.close: sessions still running end and are stored first). A part registers its closer as
 * soon as it runs, so a later part failing to start stops it too.
 */
type Closers = Record<'sip' | 'api' | 'worker' | 'sessions', Array<() => Promise<void>>>;

/** What every part of a starting service is started with. */
interface Starting {
  config: Config;
  role: Role;
  wiring: Wiring;
  logger: Logger;
  closers: Closers;
}

export async function startService(
  config: Config,
  role: Role,
  out: NodeJS.WritableStream = process.stdout,
  transferer?: Transferer,
): Promise<RunningService> {
  const logger = createLogger(config.logLevel);
  // Before the store and the services are built: they add their spans only when tracing is on.
  const tracing = config.otlpEndpoint
    ? startTracing({ endpoint: config.otlpEndpoint, nodeId: config.nodeId, role })
    : undefined;
  const { store } = await openConfiguredStore(config);
  const wiring = createWiring({ config, store, logger });
  const firstKey = await firstRun(wiring.deps, config, out);
  const closers: Closers = { sip: [], api: [], worker: [], sessions: [] };
  const s: Starting = { config, role, wiring, logger, closers };
  let closing: Promise<void> | null = null;
  const service: RunningService = {
    close() {
      closing ??= (async () => {
        for (const close of [...closers.sip, ...closers.api, ...closers.worker, ...closers.sessions]) {
          await close().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
        }
        await store.close();
        // The spans of the calls and requests just drained go out before the process does.
        await tracing
          ?.shutdown()
          .catch((err: unknown) => logger.error({ err }, 'could not send the last traces'));
        logger.flush?.();
      })();
      return closing;
    },
  };

  // A part that fails to start (a port in use, a bad certificate) stops the ones already running.
  try {
    if (role === 'all' || role === 'worker') startWebhookWorker(s, store);
    // Force-ends and cancels between nodes (REDIS_URL; else this process alone): roles that run
    // sessions, calls or the API. Closed in the last phase: the drain and the API may use it until then.
    const liveBus = role === 'worker' ? undefined : createLiveBus(config, logger.child({ part: 'live' }));
    if (liveBus) closers.sessions.push(() => liveBus.close());
    closers.sessions.push(() => wiring.close());
    // SIP before the API, whose POST /calls dials through it.
    const sip =
      (role === 'all' || role === 'sip') && config.sip.port !== 0 ? await startSip(s, transferer) : undefined;
    if (role === 'all' || role === 'api') {
      await startApi(s, {
        ...(sip ? { dialer: sip.node.dialer } : {}),
        ...(liveBus ? { liveEvents: liveBus } : {}),
      });
      out.write(apiBanner(config, role, store, firstKey));
    }
    if (role === 'all' || role === 'worker') startSessionSweep(s);
    // A node without the API still tells Prometheus and its supervisor how it is (METRICS_PORT).
    if ((role === 'sip' || role === 'worker') && config.metricsPort !== undefined) await startOpsListener(s);
    // Other nodes' force-ends and cancels reach the sessions and calls live in this process.
    if (liveBus) {
      followLiveEvents(liveBus, {
        sessions: wiring.sessionHost,
        keys: wiring.deps.keyCache,
        dispatch: wiring.deps.dispatchCache,
        calls: sip?.node.dialer,
        logger: logger.child({ part: 'live' }),
      });
    }
    // After the API's lines, so the banner reads top-down.
    if (sip) out.write(sip.banner);
  } catch (err) {
    await service.close();
    throw err;
  }
  return service;
}

/** Delivers the outbox's webhooks (roles all and worker). */
function startWebhookWorker({ config, wiring, logger, closers }: Starting, store: Store): void {
  const notifier = createOwnerNotifier({ smtpUrl: config.smtpUrl, logger });
  const dispatcher = createGuardedAgent({ policy: new AddressPolicy(config.webhookAllowedCidrs) });
  const worker = new WebhookWorker({
    store,
    clock: systemClock,
    logger: logger.child({ part: 'webhooks' }),
    dispatcher,
    secrets: wiring.deps.secretBox,
    notifier,
  });
  worker.start();
  closers.worker.push(async () => {
    await worker.stop(); // waits for deliveries in flight
    await dispatcher.close();
    notifier.close();
  });
}

/** Answers and places calls (roles all and sip); returns the node and its banner line. */
async function startSip(
  { config, role, wiring, logger, closers }: Starting,
  transferer: Transferer | undefined,
): Promise<{ node: TelephonyNode; banner: string }> {
  const { deps } = wiring;
  // Calls this node (SWITCHBOARD_NODE_ID) had live when its previous process died cannot be
  // resumed: close them first. Other SIP nodes' calls on a shared store are left running.
  const swept = await closeStaleCalls(deps, 'server_restart');
  if (swept.calls) {
    logger.warn({ calls: swept.calls, node_id: config.nodeId }, 'closed calls left live by the previous run');
  }
  await startRecordingUpkeep(deps, logger, closers);
  const tls =
    config.sip.tlsCert && config.sip.tlsKey
      ? {
          port: config.sip.tlsPort,
          cert: fs.readFileSync(config.sip.tlsCert),
          key: fs.readFileSync(config.sip.tlsKey),
        }
      : undefined;
  const node = await TelephonyNode.start({
    deps: { ...deps, logger: logger.child({ part: 'sip' }) },
    sessions: wiring.sessionHost,
    tts: wiring.providers.tts,
    stt: wiring.providers.stt,
    ...(tls ? { tls } : {}),
    // Transfers (transfer_call by REFER, transfer_to_human with a bridge): TelephonyNode's own
    // unless a test injects one; the warm announcement uses the prompts' (cached) TTS.
    ...(transferer ? { transferer } : {}),
  });
  // The API roles' banner says it; a SIP-only node says it in its log.
  const speech = speechStatus(config);
  if (role === 'sip' && !speech.output.available) {
    logger.warn(`speech output unavailable: ${speech.output.detail}`);
  }
  closers.sip.push(async () => {
    const r = await node.close();
    if (r.hungUp) logger.warn('calls still up at the drain limit were hung up');
    if (r.gaveUp) logger.warn('hanging up outlasted its limit: the remaining calls were ended in the store');
  });
  const a = node.address;
  const banner =
    `  SIP:        ${config.sip.host} udp+tcp ${a.udp}${a.tls ? `, tls ${a.tls}` : ''}, ` +
    `RTP ${config.sip.rtpPortMin}-${config.sip.rtpPortMax} (inbound calls run workflows by their number's dispatch rules)\n`;
  return { node, banner };
}

/** Serves the HTTP API (roles all and api). Without a dialer POST /calls ends calls `sip_unavailable`. */
async function startApi({ config, wiring, logger, closers }: Starting, parts: ServiceParts): Promise<void> {
  const rateLimiter: RateLimiter = config.redisUrl
    ? new RedisRateLimiter(config.redisUrl, config.rateLimitPerMinute)
    : new MemoryRateLimiter(config.rateLimitPerMinute, systemClock);
  // Registered before the app exists, so a failed build or listen still closes the limiter.
  // GET /metrics describes this process: its calls, media, webhook attempts and requests.
  const metrics = createMetrics({ db: wiring.deps.db, clock: systemClock, nodeId: config.nodeId });
  // Revocations made where no bus reaches (the CLI without REDIS_URL) clear the key cache too.
  const stopEpochWatch = watchKeyEpoch(wiring.deps);
  const api: { app?: { close(): Promise<unknown> } } = {};
  closers.api.push(async () => {
    stopEpochWatch();
    await api.app?.close();
    await rateLimiter.close?.();
    metrics.close();
  });
  const built = await buildApp({
    wiring,
    rateLimiter,
    httpLogger: logger.child({ part: 'api' }),
    parts,
    metrics,
  });
  api.app = built.app;
  await built.app.listen({ host: config.host, port: config.port });
}

function apiBanner(config: Config, role: Role, store: Store, firstKey: string | null): string {
  return [
    `Switchboard ${role === 'all' ? '' : `(${role}) `}is listening.`,
    `  API:        ${config.publicBaseUrl}/api/v1   (OpenAPI: ${config.publicBaseUrl}/api/v1/openapi.json)`,
    `  Health:     ${config.publicBaseUrl}/healthz`,
    ...dashboardLines(config.publicBaseUrl, firstKey),
    `  Store:      ${store.dialect === 'sqlite' ? path.join(config.dataDir, SQLITE_FILE) : 'PostgreSQL'}`,
    speechLine(speechStatus(config)),
    '',
  ].join('\n');
}

/**
 * Call recordings on this node's storage: the headers a crash left behind are finished before
 * calls are taken (they stay playable either way), and recordings past RECORDING_RETENTION_DAYS
 * are deleted at start and every hour.
 */
async function startRecordingUpkeep(
  deps: ServiceDeps,
  logger: Logger,
  closers: Starting['closers'],
): Promise<void> {
  const recordings = new RecordingsService(deps);
  // Awaited: a file being written by a new call would look like one a crash left.
  await recoverRecordings(recordings.storage, logger).catch((err: unknown) =>
    logger.error({ err }, 'recording recovery failed'),
  );
  void recordings
    .deleteExpired()
    .catch((err: unknown) => logger.error({ err }, 'recording retention failed'));
  const retention = setInterval(() => {
    void recordings
      .deleteExpired()
      .catch((err: unknown) => logger.error({ err }, 'recording retention failed'));
  }, RECORDING_RETENTION_SWEEP_MS);
  retention.unref();
  closers.sip.push(async () => clearInterval(retention));
}

const RECORDING_RETENTION_SWEEP_MS = 60 * 60 * 1000;

/** Minted web sessions nobody joined before their token expired end with `timeout`. */
function startSessionSweep({ wiring, logger, closers }: Starting): void {
  const sweep = setInterval(() => {
    void expireUnjoinedSessions(wiring.deps).catch((err: unknown) =>
      logger.error({ err }, 'session expiry sweep failed'),
    );
  }, SESSION_SWEEP_MS);
  sweep.unref();
  closers.worker.push(async () => clearInterval(sweep));
}

/**
 * GET /metrics and GET /healthz on HOST:METRICS_PORT for the roles that serve no API (sip, worker):
 * the same metrics and access rule (loopback, or METRICS_TOKEN) as the API's, on a server of its own.
 */
async function startOpsListener({ config, wiring, logger, closers }: Starting): Promise<void> {
  const metrics = createMetrics({ db: wiring.deps.db, clock: systemClock, nodeId: config.nodeId });
  const app = await buildOpsApp({
    db: wiring.deps.db,
    dialect: wiring.deps.dialect,
    metrics,
    token: config.metricsToken,
  });
  closers.api.push(async () => {
    await app.close();
    metrics.close();
  });
  await app.listen({ host: config.host, port: config.metricsPort! });
  logger.info({ port: config.metricsPort }, 'metrics and health on METRICS_PORT');
}

/** The banner's dashboard address, and on the first start a link that signs in with the new key. */
function dashboardLines(base: string, firstKey: string | null): string[] {
  const built = dashboardBuilt(defaultDashboardDir());
  const lines = [`  Dashboard:  ${base}/${built ? '' : ' (not built: run npm run build:web)'}`];
  // The key rides in the fragment, which browsers never send to a server; the app stores and strips it.
  if (firstKey) lines.push(`  Sign in:    ${base}/#key=${firstKey}   (this start only)`);
  return lines;
}

/** `switchboard serve`: runs until SIGTERM/SIGINT, then drains and exits. */
export async function runService(config: Config, role: Role): Promise<void> {
  const service = await startService(config, role);
  await new Promise<void>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (++signals > 1) {
        process.stderr.write(`second ${signal}: exiting now\n`);
        process.exit(1);
      }
      process.stderr.write(
        `${signal}: draining requests and deliveries (up to ${SHUTDOWN_GRACE_MS / 1000} s)…\n`,
      );
      const timer = setTimeout(() => {
        process.stderr.write('shutdown grace period over: exiting\n');
        process.exit(1);
      }, SHUTDOWN_GRACE_MS);
      timer.unref();
      void service.close().then(resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** One banner line: what speaks and hears, or that nothing speaks and how to fix it. */
function speechLine(status: SpeechStatus): string {
  const part = (p: SpeechStatus['output']): string => (p.engine ? `${p.engine} (embedded)` : p.provider);
  if (!status.output.available) {
    return `  Speech:     OUTPUT UNAVAILABLE: ${status.output.detail}; calls run silent until then`;
  }
  return `  Speech:     out ${part(status.output)}, in ${part(status.input)}`;
}
