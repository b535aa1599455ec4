// The one wiring of the service's parts. From configuration, a store and a logger it builds what
// every entry point runs on: the services' dependencies (clock, ids, server keys, secret box), the
// providers (the LLM registry, TTS with its prompt cache, STT when one is configured, the
// SSRF-guarded HTTP agent that webhook nodes and agent tools go through), the session host that
// runs sessions on them, and the services. `serve` (main.ts), `chat` (cli/chat.ts), buildApp's
// callers, the benchmarks and the tests' nodes all start here, so each runs the parts `serve` runs.
import type { Agent } from 'undici';
import type { WebPeerFactory } from '../channels/web-media.js';
import type { Config } from '../config/config.js';
import { iceServersFor } from '../config/ice-servers.js';
import { AddressPolicy } from '../events/address-policy.js';
import { createGuardedAgent } from '../events/ssrf-guard.js';
import type { ServiceDeps } from '../modules/context.js';
import { createServices, type ServiceOverrides, type Services } from '../modules/services.js';
import { KeyCache } from '../modules/api-keys/key-cache.js';
import { DispatchCache } from '../modules/calls/dispatch-cache.js';
import { SessionHost } from '../modules/sessions/session-host.js';
import { createLlmRegistry, type LlmRegistry } from '../providers/llm/registry.js';
import type { SttProvider } from '../providers/stt/stt.types.js';
import { CachingTtsProvider } from '../providers/tts/cache.js';
import { createTtsProvider } from '../providers/tts/registry.js';
import type { TtsProvider } from '../providers/tts/tts.types.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { SecretBox } from '../shared/secret-box.js';
import { deriveServerKeys, loadMasterKey } from '../shared/server-key.js';
import type { Store } from '../store/database.js';
import { configuredStt } from '../telephony/calls/node/telephony-node.js';
import { createWebPeerFactory } from '../webrtc/web-peers.js';

/** What sessions and calls talk to outside the process. */
export interface Providers {
  llm: LlmRegistry;
  /** TTS_VENDOR_1 when configured, else espeak-ng; repeated prompts come from a cache. */
  tts: TtsProvider;
  /** STT_VENDOR_1 when its key or base URL is configured; null: calls run without listening. */
  stt: SttProvider | null;
  /** undici agent that refuses private addresses outside WEBHOOK_ALLOWED_CIDRS, at connect time. */
  httpAgent: Agent;
}

export interface WiringOptions {
  config: Config;
  store: Store;
  logger: Logger;
  /** Default: the system clock. Tests and benchmarks pass a fake one. */
  clock?: Clock;
  /** Runs sessions on another clock than the services' (tests: real time for sockets). */
  sessionClock?: Clock;
  /** Used instead of the configured ones (tests, benchmarks); the wiring does not close these. */
  providers?: Partial<Providers>;
  /**
   * Makes web sessions' peer connections (default: node-datachannel on WEBRTC_HOST); null keeps
   * web sessions text only.
   */
  webPeers?: WebPeerFactory | null;
}

/** Parts only some roles or tests have, given when the services are built. */
export type ServiceParts = Omit<ServiceOverrides, 'liveSessions'>;

export interface Wiring {
  readonly deps: ServiceDeps;
  readonly providers: Providers;
  /** Runs this process's sessions: realtime sockets, `chat`, and the calls of a SIP node. */
  readonly sessionHost: SessionHost;
  /**
   * The services over this wiring, with DELETE /sessions reaching the session host. `parts` are
   * what exists only in some roles: the SIP dialer (without one, POST /calls ends calls
   * `sip_unavailable`), the live-event publisher, a DNS resolver for webhook URL checks.
   */
  services(parts?: ServiceParts): Services;
  /** Ends the sessions still running here (their endings stored), then closes what it built. */
  close(): Promise<void>;
}

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
    keyCache: store.dialect === 'postgres' ? new KeyCache(clock) : null,
    dispatchCache: new DispatchCache(clock),
  };
}

/** The TTS voice web sessions speak with until an agent node passes its own (as calls do). */
const DEFAULT_VOICE = 'en';

export function createWiring(options: WiringOptions): Wiring {
  const { config } = options;
  const deps = serviceDeps(config, options.store, options.logger, options.clock);
  const given = options.providers ?? {};
  const owned: Array<{ close(): Promise<void> }> = [];
  const own = <T extends { close(): Promise<void> }>(resource: T): T => {
    owned.push(resource);
    return resource;
  };
  const providers: Providers = {
    llm: given.llm ?? own(createLlmRegistry(config)),
    tts: given.tts ?? new CachingTtsProvider(createTtsProvider(config)),
    stt: given.stt !== undefined ? given.stt : configuredStt(deps),
    httpAgent:
      given.httpAgent ?? own(createGuardedAgent({ policy: new AddressPolicy(config.webhookAllowedCidrs) })),
  };
  const sessionDeps = options.sessionClock ? { ...deps, clock: options.sessionClock } : deps;
  const peers =
    options.webPeers !== undefined
      ? options.webPeers
      : createWebPeerFactory({
          clock: sessionDeps.clock,
          host: config.webrtc.host,
          ...(config.webrtc.publicIp ? { publicIp: config.webrtc.publicIp } : {}),
          portRange: { min: config.sip.rtpPortMin, max: config.sip.rtpPortMax },
          logger: options.logger,
        });
  const sessionHost = new SessionHost(sessionDeps, {
    llm: providers.llm,
    dispatcher: providers.httpAgent,
    ...(peers
      ? {
          web: {
            peers,
            tts: providers.tts,
            stt: providers.stt,
            voice: DEFAULT_VOICE,
            iceServers: (sessionId: string) => iceServersFor(config.webrtc, sessionId, deps.clock.now()),
          },
        }
      : {}),
  });
  let closing: Promise<void> | undefined;
  return {
    deps,
    providers,
    sessionHost,
    services: (parts = {}) => createServices(deps, { ...parts, liveSessions: sessionHost }),
    close() {
      // The sessions' endings are stored first, then the providers' connections go.
      closing ??= (async () => {
        await sessionHost.close();
        for (const resource of owned) await resource.close();
      })();
      return closing;
    },
  };
}
