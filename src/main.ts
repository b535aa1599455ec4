// Wires configuration, store and parts, and runs the chosen role:
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
import { expireUnjoinedSessions } from './modules/sessions/session-lifecycle.js';
import { createWorkspace } from './modules/workspaces/workspaces.service.js';
import { systemClock, type Clock } from './shared/clock.js';
import { newId } from './shared/ids.js';
import { createLogger, type Logger } from './shared/logger.js';
import { SecretBox } from './shared/secret-box.js';
import { deriveServerKeys, loadMasterKey } from './shared/server-key.js';
import type { Role } from './config/roles.js';
import { openConfiguredStore, SQLITE_FILE } from './store/configured-store.js';
import { closeStaleCalls } from './telephony/calls/recover-calls.js';
import { TelephonyNode } from './telephony/calls/telephony-node.js';
import type { Transferer } from './telephony/calls/transfer-context.js';
import { SessionHost } from './modules/sessions/session-host.js';
import { createLlmRegistry } from './providers/llm/registry.js';
import type { Store } from './store/database.js';
import { speechStatus, type SpeechStatus } from './providers/speech-status.js';
import { dashboardBuilt, defaultDashboardDir } from './web-serving/dashboard.js';

export type { Role } from './config/roles.js';

/** How often unjoined sessions past their join token's expiry are ended. */
const SESSION_SWEEP_MS = 60_000;

/** How long shutdown waits for requests, deliveries and calls in flight before giving up. */
export const SHUTDOWN_GRACE_MS = 30_000;

/**
 * What every part of the service is built on. The server keys come from SWITCHBOARD_SECRET_KEY or
 * the data dir's key file; tests and benchmarks set the former and pass their own clock.
 */
export function serviceDeps(
  config: Config,
  store: Store,
  logger: Logger,
  clock: Clock = systemClock,
): ServiceDeps {
  const keys = deriveServerKeys(loadMasterKey(config.secretKey, config.dataDir));
  return {
    db: store.db,
    dialect: store.dialect,
    clock,
    newId,
    config,
    keys,
    secretBox: new SecretBox(keys.secretBox),
    logger,
  };
}

/**
 * On an empty store: the `default` workspace, its key printed once to stdout. Returns the key, for
 * the dashboard's sign-in link in the banner; null on later starts.
 */
async function firstRun(
  deps: ServiceDeps,
  config: Config,
  out: NodeJS.WritableStream,
): Promise<string | null> {
  const any = await deps.db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  if (any) return null;
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

export async function startService(
  config: Config,
  role: Role,
  out: NodeJS.WritableStream = process.stdout,
  transferer?: Transferer,
): Promise<RunningService> {
  const logger = createLogger(config.logLevel);
  const { store } = await openConfiguredStore(config);
  const deps = serviceDeps(config, store, logger);
  const firstKey = await firstRun(deps, config, out);
  // Shutdown runs the parts' closers phase by phase, whatever order they started in: SIP first
  // (new INVITEs get 503 while calls finish, up to the drain limit), then the API (no new work),
  // then the worker (deliveries in flight), then the session host and providers. A part registers
  // its closer as soon as it runs, so a later part failing to start stops it too.
  const closers: Record<'sip' | 'api' | 'worker' | 'sessions', Array<() => Promise<void>>> = {
    sip: [],
    api: [],
    worker: [],
    sessions: [],
  };
  let closing: Promise<void> | null = null;
  const service: RunningService = {
    close() {
      closing ??= (async () => {
        for (const close of [...closers.sip, ...closers.api, ...closers.worker, ...closers.sessions]) {
          await close().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
        }
        await store.close();
        logger.flush?.();
      })();
      return closing;
    },
  };

  // A part that fails to start (a port in use, a bad certificate) stops the ones already running.
  try {
    if (role === 'all' || role === 'worker') {
      const notifier = createOwnerNotifier({ smtpUrl: config.smtpUrl, logger });
      const dispatcher = createGuardedAgent({ policy: new AddressPolicy(config.webhookAllowedCidrs) });
      const worker = new WebhookWorker({
        store,
        clock: systemClock,
        logger: logger.child({ part: 'webhooks' }),
        dispatcher,
        secrets: deps.secretBox,
        notifier,
      });
      worker.start();
      closers.worker.push(async () => {
        await worker.stop(); // waits for deliveries in flight
        await dispatcher.close();
        notifier.close();
      });
    }

    // Force-ends and cancels between nodes (REDIS_URL; else this process alone): roles that run
    // sessions, calls or the API. Closed in the last phase: the drain and the API may use it until then.
    const liveBus = role === 'worker' ? undefined : createLiveBus(config, logger.child({ part: 'live' }));
    if (liveBus) closers.sessions.push(() => liveBus.close());

    // SIP (roles all and sip): started before the API, whose POST /calls dials through it.
    let telephony: TelephonyNode | undefined;
    let sessionHost: SessionHost | undefined;
    let sipLine = '';
    if ((role === 'all' || role === 'sip') && config.sip.port !== 0) {
      // Calls this node (SWITCHBOARD_NODE_ID) had live when its previous process died cannot be
      // resumed: close them first. Other SIP nodes' calls on a shared store are left running.
      const swept = await closeStaleCalls(deps, 'server_restart');
      if (swept.calls) {
        logger.warn(
          { calls: swept.calls, node_id: config.nodeId },
          'closed calls left live by the previous run',
        );
      }
      const llm = createLlmRegistry(config);
      const dispatcher = createGuardedAgent({ policy: new AddressPolicy(config.webhookAllowedCidrs) });
      const host = new SessionHost(deps, { llm, dispatcher });
      sessionHost = host;
      // Last to close: the sessions' endings are stored, then the providers' connections go.
      closers.sessions.push(async () => {
        await host.close();
        await llm.close();
        await dispatcher.close();
      });
      const tls =
        config.sip.tlsCert && config.sip.tlsKey
          ? {
              port: config.sip.tlsPort,
              cert: fs.readFileSync(config.sip.tlsCert),
              key: fs.readFileSync(config.sip.tlsKey),
            }
          : undefined;
      telephony = await TelephonyNode.start({
        deps: { ...deps, logger: logger.child({ part: 'sip' }) },
        sessions: host,
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
      const node = telephony;
      closers.sip.push(async () => {
        const r = await node.close();
        if (r.hungUp) logger.warn('calls still up at the drain limit were hung up');
      });
      const a = telephony.address;
      sipLine =
        `  SIP:        ${config.sip.host} udp+tcp ${a.udp}${a.tls ? `, tls ${a.tls}` : ''}, ` +
        `RTP ${config.sip.rtpPortMin}-${config.sip.rtpPortMax} (inbound calls run workflows by their number's dispatch rules)\n`;
    }

    if (role === 'all' || role === 'api') {
      const rateLimiter: RateLimiter = config.redisUrl
        ? new RedisRateLimiter(config.redisUrl, config.rateLimitPerMinute)
        : new MemoryRateLimiter(config.rateLimitPerMinute, systemClock);
      // Registered before the app exists, so a failed build or listen still closes the limiter.
      const api: { app?: { close(): Promise<unknown> } } = {};
      closers.api.push(async () => {
        await api.app?.close();
        await rateLimiter.close?.();
      });
      const built = await buildApp({
        ...deps,
        rateLimiter,
        httpLogger: logger.child({ part: 'api' }),
        // Without SIP here (role api, SIP_PORT=0) POST /calls ends calls `sip_unavailable`.
        ...(telephony ? { overrides: { dialer: telephony.dialer } } : {}),
        ...(sessionHost ? { sessionHost } : {}),
        ...(liveBus ? { liveEvents: liveBus } : {}),
      });
      api.app = built.app;
      // Without SIP here the app runs the realtime sockets' sessions on a host of its own.
      sessionHost ??= built.sessionHost;
      await built.app.listen({ host: config.host, port: config.port });
      out.write(
        [
          `Switchboard ${role === 'all' ? '' : `(${role}) `}is listening.`,
          `  API:        ${config.publicBaseUrl}/api/v1   (OpenAPI: ${config.publicBaseUrl}/api/v1/openapi.json)`,
          `  Health:     ${config.publicBaseUrl}/healthz`,
          ...dashboardLines(config.publicBaseUrl, firstKey),
          `  Store:      ${store.dialect === 'sqlite' ? path.join(config.dataDir, SQLITE_FILE) : 'PostgreSQL'}`,
          speechLine(speechStatus(config)),
          '',
        ].join('\n'),
      );
    }

    if (role === 'all' || role === 'worker') {
      // Minted web sessions nobody joined before their token expired end with `timeout`.
      const sweep = setInterval(() => {
        void expireUnjoinedSessions(deps).catch((err: unknown) =>
          logger.error({ err }, 'session expiry sweep failed'),
        );
      }, SESSION_SWEEP_MS);
      sweep.unref();
      closers.worker.push(async () => clearInterval(sweep));
    }

    // Other nodes' force-ends and cancels reach the sessions and calls live in this process.
    if (liveBus) {
      followLiveEvents(liveBus, {
        sessions: sessionHost,
        calls: telephony?.dialer,
        logger: logger.child({ part: 'live' }),
      });
    }

    // After the API's lines, so the banner reads top-down.
    if (sipLine) out.write(sipLine);
  } catch (err) {
    await service.close();
    throw err;
  }
  return service;
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
