// The SIP part of a node (roles `all` and `sip`): the SipStack with the call host as its
// transaction user, RTP ports from RTP_PORT_MIN..RTP_PORT_MAX on one shared frame timer, a phone
// channel per call with the configured TTS (tts_vendor_1, else espeak-ng, prompts cached) and STT
// (stt_vendor_1 when a key or base URL is configured, else the embedded recogniser),
// transfers (REFER and warm) and the dial node's second legs, the SipDialer for POST /calls, and
// the drain that SIGTERM runs. main.ts and the e2e tests both start calls through this, so the
// tests run the wiring the service runs.
import dns, { Resolver } from 'node:dns/promises';
import { PhoneChannel } from '../../../channels/phone-channel.js';
import type { ServiceDeps } from '../../../modules/context.js';
import { emitTelemetry } from '../../../shared/telemetry.js';
import type { SessionHost } from '../../../modules/sessions/session-host.js';
import { createSttProvider } from '../../../providers/stt/registry.js';
import type { SttProvider } from '../../../providers/stt/stt.types.js';
import { CachingTtsProvider } from '../../../providers/tts/cache.js';
import { createTtsProvider } from '../../../providers/tts/registry.js';
import type { TtsProvider } from '../../../providers/tts/tts.types.js';
import { RtpPortAllocator } from '../../media/port-allocator.js';
import { SharedPacer } from '../../media/shared-pacer.js';
import { addTicks, type MediaWorkerPool } from '../../media/workers/media-worker-pool.js';
import { startMediaWorkers } from './media-workers.js';
import { systemClock } from '../../../shared/clock.js';
import { OverloadGate, processLoadSignals, type OverloadLimits } from '../../sip/overload.js';
import { SipStack, type SipStackOptions } from '../../sip/stack.js';
import { CallDrain, DRAIN_LIMIT_MS, type DrainResult } from './call-drain.js';
import { CallHost } from './call-host.js';
import { advertisedAddress, type MediaEnv } from '../call-media/call-media-setup.js';
import type { CallHostDeps, PhoneChannelFactory } from '../live/live-call.js';
import type { SipDialer } from '../outbound/sip-dialer.js';
import type { SecondLegDialler, Transferer } from '../transfer/transfer-context.js';
import { createSecondLegDialler, createTransferer } from '../transfer/transfer.js';
import { createWebLegs, type WebLegs } from '../transfer/web-leg.js';
import { TrunkManager, type TrunkManagerOptions } from '../trunks/trunk-manager.js';
import { SipResolver, type DnsClient } from '../../sip/transport/resolve.js';
import { tlsClientTrust } from '../../sip/transport/tls-trust.js';

export interface TelephonyNodeOptions {
  deps: ServiceDeps;
  sessions: SessionHost;
  /** SIP over UDP+TCP on this port (0: a free one). Default config.sip.port. */
  port?: number;
  tls?: SipStackOptions['tls'];
  /**
   * Outbound TLS (a trunk's registrar, termination host). Default: the trust SIP_TLS_CA configures
   * (tls-trust.ts), else Node's own store.
   */
  tlsClient?: SipStackOptions['tlsClient'];
  /** Default: RTP_PORT_MIN..RTP_PORT_MAX. */
  ports?: RtpPortAllocator;
  /** Default: from config (tts_vendor_1 or espeak-ng, cached). */
  tts?: TtsProvider;
  /** Default: stt_vendor_1 when configured, else null. */
  stt?: SttProvider | null;
  /** The espeak-ng or vendor voice prompts are spoken with (agent nodes pass their own). */
  voice?: string;
  /** Default: blind (REFER) and warm transfers (transfer.ts), announcements in `voice`. */
  transferer?: Transferer;
  /** The dial node's second legs (default: createSecondLegDialler()). */
  dialler?: SecondLegDialler;
  drainLimitMs?: number;
  /** Tests: another channel over the call's media. */
  newChannel?: PhoneChannelFactory;
  /**
   * Media worker threads (default config MEDIA_WORKERS; 0 with a test's fake clock, which a
   * worker's frame timer cannot follow).
   */
  mediaWorkers?: number;
  /** Tests: SIP timers. */
  timers?: SipStackOptions['timers'];
  /**
   * Tests and the benchmark: admission limits instead of MAX_CONCURRENT_CALLS and
   * MAX_CALLS_PER_SECOND (tests fix them, so a loaded test machine never refuses their calls).
   */
  admission?: OverloadLimits;
  /** Tests and the benchmark: the per-source flood throttle (default SIP_FLOOD_*). */
  throttle?: SipStackOptions['throttle'];
  /**
   * Where outbound INVITEs (and trunk OPTIONS/REGISTER) to a host name go. Default: RFC 3263
   * (sip/transport/resolve.ts SipResolver: NAPTR, SRV `_sip._udp` / `_sip._tcp` / `_sips._tcp` by
   * priority and weight, then A/AAAA) over `dns`. Tests point a carrier's name at sipp.
   */
  resolve?: CallHostDeps['resolve'];
  /** The DNS client of the default resolver (default: SIP_DNS_SERVERS, else node:dns/promises). */
  dns?: DnsClient;
  /** Trunk registration and OPTIONS pings (trunks/trunk-manager.ts); false: none (tests). */
  trunks?: Pick<TrunkManagerOptions, 'syncMs' | 'ping' | 'binding'> | false;
}

/** The servers of SIP_DNS_SERVERS, or the system's (node:dns/promises) when none is set. */
function dnsClient(servers: readonly string[]): DnsClient {
  if (servers.length === 0) return dns;
  const resolver = new Resolver();
  resolver.setServers([...servers]);
  return resolver;
}

/** stt_vendor_1 as configured, or the embedded recogniser standing in for it. */
export function configuredStt(deps: Pick<ServiceDeps, 'config'>): SttProvider | null {
  return createSttProvider(deps.config);
}

/** The limits that are set; an unset one is derived by the gate. */
function definedLimits(a: ServiceDeps['config']['admission']): {
  maxConcurrentCalls?: number;
  maxCallsPerSecond?: number;
} {
  return {
    ...(a.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: a.maxConcurrentCalls } : {}),
    ...(a.maxCallsPerSecond !== undefined ? { maxCallsPerSecond: a.maxCallsPerSecond } : {}),
  };
}

/** The node's RTP side: its port range, the main thread's frame timer, the media workers. */
interface RtpResources {
  ports: RtpPortAllocator;
  pacer: SharedPacer;
  workers: MediaWorkerPool | null;
}

async function rtpResources(o: TelephonyNodeOptions): Promise<RtpResources> {
  const { config, clock } = o.deps;
  const ports = o.ports ?? new RtpPortAllocator(config.sip.rtpPortMin, config.sip.rtpPortMax);
  const pacer = new SharedPacer(clock);
  const workerCount = o.mediaWorkers ?? (clock === systemClock ? config.sip.mediaWorkers : 0);
  const workers =
    workerCount > 0 ? await startMediaWorkers(workerCount, config.sip.mediaWorkerNice, o.deps.logger) : null;
  return { ports, pacer, workers };
}

/**
 * Overload control (src/telephony/sip/overload.ts): every port pair is one call at most. The
 * workers' frame timers (what calls send) count with the main one's (what they hear).
 */
function overloadControl(
  o: TelephonyNodeOptions,
  rtp: RtpResources,
  activeCalls: () => number,
): { gate: OverloadGate; signals: ReturnType<typeof processLoadSignals> } {
  const { config, clock } = o.deps;
  const signals = processLoadSignals(() => addTicks(rtp.pacer.ticks, rtp.workers?.ticks));
  const gate = new OverloadGate(
    clock,
    {
      concurrentCeiling: rtp.ports.available + rtp.ports.inUse,
      ...(o.admission ?? definedLimits(config.admission)),
    },
    activeCalls,
    signals,
    (s) =>
      emitTelemetry({
        kind: 'admission.limits',
        concurrentCalls: s.concurrentLimit,
        callsPerSecond: s.rateLimit,
        loopDelaySeconds: s.loopDelayP99Ms / 1000,
      }),
  );
  return { gate, signals };
}

/** The SIP stack, its requests handed to the call host, its admission through the gate. */
function sipStack(
  o: TelephonyNodeOptions,
  tlsClient: SipStackOptions['tlsClient'],
  gate: OverloadGate,
  onRequest: NonNullable<SipStackOptions['onRequest']>,
): SipStack {
  const { config, clock } = o.deps;
  return new SipStack({
    clock,
    host: config.sip.host,
    port: o.port ?? config.sip.port,
    ...(o.tls ? { tls: o.tls } : {}),
    ...(tlsClient ? { tlsClient } : {}),
    ...(o.timers ? { timers: o.timers } : {}),
    failoverMs: config.sip.failoverSeconds * 1000,
    serverName: 'Switchboard',
    throttle: o.throttle ?? config.sip.flood,
    maxWriteQueueBytes: config.sip.maxWriteQueueBytes,
    admission: gate,
    onRequest,
  });
}

/** Where the node's calls bind their RTP and what their SDP says. */
function mediaEnv(o: TelephonyNodeOptions, rtp: RtpResources, sipHost: string): MediaEnv {
  const { deps } = o;
  return {
    clock: deps.clock,
    ports: rtp.ports,
    bindHost: deps.config.sip.host,
    address: sipHost,
    pacer: rtp.pacer,
    ...(rtp.workers ? { workers: rtp.workers } : {}),
    onError: (err) => deps.logger.debug?.({ err }, 'rtp error'),
    // SIP_CODECS: every offer and answer of this node's calls follows this order.
    codecs: deps.config.sip.codecs,
    mediaTimeoutMs: deps.config.sip.mediaTimeoutSeconds * 1000,
    mediaHoldTimeoutMs: deps.config.sip.mediaHoldTimeoutSeconds * 1000,
  };
}

/** The phone channel each call runs its workflow on, with the node's TTS, STT and voice. */
function phoneChannels(o: TelephonyNodeOptions): {
  tts: TtsProvider;
  stt: SttProvider | null;
  voice: string;
  newChannel: PhoneChannelFactory;
} {
  const { deps } = o;
  const tts = o.tts ?? new CachingTtsProvider(createTtsProvider(deps.config));
  const stt = o.stt === undefined ? configuredStt(deps) : o.stt;
  const voice = o.voice ?? 'en';
  const newChannel: PhoneChannelFactory =
    o.newChannel ??
    (({ media, control }) =>
      new PhoneChannel({ clock: deps.clock, media, control, tts, voice, stt, logger: deps.logger }));
  return { tts, stt, voice, newChannel };
}

export class TelephonyNode {
  private constructor(
    readonly stack: SipStack,
    readonly calls: CallHost,
    readonly drainer: CallDrain,
    readonly ports: RtpPortAllocator,
    /** Overload control: the admission limits in force (MAX_CONCURRENT_CALLS, MAX_CALLS_PER_SECOND). */
    readonly overload: OverloadGate,
    private readonly stopSignals: () => void,
    readonly address: { host: string; udp: number; tcp?: number; tls?: number },
    /** Registrations and OPTIONS pings of the trunks that ask for them; null when turned off. */
    readonly trunks: TrunkManager | null,
    /** The dial legs of this process's web sessions (browser voice). */
    private readonly webLegs: WebLegs,
    private readonly stopWebLegs: () => void,
    /** The media worker threads' OS ids (empty without workers): their CPU time is theirs alone. */
    readonly mediaThreads: readonly number[],
  ) {}

  static async start(o: TelephonyNodeOptions): Promise<TelephonyNode> {
    const { deps } = o;
    // SIP_TLS_CA read now: a file that is not there stops the start before anything is opened.
    const tlsClient = o.tlsClient ?? tlsClientTrust(deps.config.sip);
    const drainer = new CallDrain(deps, o.drainLimitMs ?? DRAIN_LIMIT_MS);
    let host: CallHost | null = null;
    const rtp = await rtpResources(o);
    const { gate, signals } = overloadControl(o, rtp, () => host?.activeCalls ?? 0);
    const stack = sipStack(
      o,
      tlsClient,
      gate,
      (req, tx, source) => host?.onRequest(req, tx, source) ?? false,
    );
    const listening = await stack.listen();
    gate.start();
    const sipHost = advertisedAddress(deps.config.sip.host);
    const media = mediaEnv(o, rtp, sipHost);
    const phone = phoneChannels(o);
    const address = {
      host: sipHost,
      udp: listening.udp ?? 0,
      ...(listening.tcp ? { tcp: listening.tcp } : {}),
      ...(listening.tls ? { tls: listening.tls } : {}),
    };
    const resolver = new SipResolver({ dns: o.dns ?? dnsClient(deps.config.sip.dnsServers) });
    const resolve: NonNullable<CallHostDeps['resolve']> = o.resolve ?? ((t) => resolver.resolve(t));
    const trunks =
      o.trunks === false
        ? null
        : new TrunkManager({ deps, stack, local: address, resolve, ...(o.trunks ?? {}) });
    host = new CallHost({
      deps,
      sessions: o.sessions,
      newChannel: phone.newChannel,
      providers: { tts: phone.tts.id, stt: phone.stt?.id ?? null },
      transferer: o.transferer ?? createTransferer({ announcer: { tts: phone.tts, voice: phone.voice } }),
      dialler: o.dialler ?? createSecondLegDialler(),
      stack,
      local: { host: sipHost, port: listening.udp ?? listening.tls ?? 0 },
      media,
      draining: drainer.draining,
      resolve,
      ...(trunks ? { trunkOfRequest: (req, source) => trunks.trunkOfRequest(req, source) } : {}),
    });
    host.onSetUp = (ms) => gate.setUpTook(ms);
    // Web sessions of this process dial their legs through this node.
    const webLegs = createWebLegs(host.shared);
    const stopWebLegs = o.sessions.setLegDialler(webLegs.dial);
    // Bindings start (and a restarted node registers again) before the node takes calls.
    await trunks?.start();
    const stopSignals = () => {
      signals.close();
      void rtp.workers?.close();
    };
    return new TelephonyNode(
      stack,
      host,
      drainer,
      rtp.ports,
      gate,
      stopSignals,
      address,
      trunks,
      webLegs,
      stopWebLegs,
      rtp.workers?.osThreads ?? [],
    );
  }

  /** The Dialer for POST /calls. */
  get dialer(): SipDialer {
    return this.calls.dialer;
  }

  /**
   * SIGTERM: new INVITEs get 503, calls in progress may finish up to the drain limit, then the
   * rest are hung up (`shutdown`) and the store swept; then the SIP sockets close.
   */
  close(): Promise<DrainResult> {
    this.closing ??= (async () => {
      // Web sessions' legs end first (cancelled or hung up, their records ended): no drain for them.
      this.stopWebLegs();
      await this.webLegs.close();
      const result = await this.drainer.drain(this.calls.drainHooks());
      this.overload.stop();
      this.stopSignals();
      // Unregisters (at most 2 s) while the sockets are still open.
      await this.trunks?.stop();
      await this.stack.close();
      return result;
    })();
    return this.closing;
  }

  private closing: Promise<DrainResult> | null = null;
}
