// The only code that reads process.env. Everything else receives a validated Config.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Config {
  /**
   * `SWITCHBOARD_NODE_ID`: the name this node's calls carry in the store, so its restart and
   * shutdown sweeps end its own calls and leave other nodes' alone. Default: defaultNodeId().
   */
  nodeId: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  host: string;
  port: number;
  publicBaseUrl: string;
  sip: {
    host: string;
    port: number;
    tlsPort: number;
    tlsCert: string | undefined;
    tlsKey: string | undefined;
    /**
     * `SIP_TLS_CA`: a PEM file of CA certificates trusted for the TLS connections we open (a
     * carrier's private CA), besides Node's bundled CAs and `NODE_EXTRA_CA_CERTS`.
     */
    tlsCa: string | undefined;
    /** `NODE_EXTRA_CA_CERTS`, kept trusted beside `SIP_TLS_CA` (a `ca` list replaces Node's default). */
    nodeExtraCaCerts: string | undefined;
    domain: string;
    rtpPortMin: number;
    rtpPortMax: number;
    /** `SIP_CODECS`: our audio codec preference, most preferred first (offers and answers). */
    codecs: SipCodecName[];
    /**
     * `MEDIA_WORKERS`: worker threads that own the calls' RTP sockets, pacing and encoding (default
     * one per core); 0 keeps media on the main thread.
     */
    mediaWorkers: number;
    /**
     * `MEDIA_WORKER_NICE`: the nice value media worker threads ask for (default -10, above the main
     * thread's 0, so frames win the CPU from the API on a loaded machine; 0 leaves it alone). Needs
     * root, CAP_SYS_NICE or RLIMIT_NICE; without them the node logs a warning and runs on.
     */
    mediaWorkerNice: number;
    /**
     * `SIP_RINGBACK`: the tone a caller hears while a second leg of their call rings without early
     * media: `us` (440+480 Hz, 2 s on 4 s off; default), `uk`, `eu` or `off` (call-media/ringback.ts).
     */
    ringback: SipRingback;
    /**
     * `MEDIA_TIMEOUT_SECONDS`: an answered call whose far end sent no RTP or RTCP for this long is
     * hung up (`media_timeout`); 0 turns it off. Not counted while the far end holds the call.
     */
    mediaTimeoutSeconds: number;
    /**
     * `MEDIA_HOLD_TIMEOUT_SECONDS`: the same, for a far end that holds the call (it may rightly
     * send nothing for long, so the bound is longer); 0 turns it off.
     */
    mediaHoldTimeoutSeconds: number;
    /** `SIP_TRUNK_SYNC_SECONDS`: how often a SIP node re-reads which trunks register or are pinged. */
    trunkSyncSeconds: number;
    /** `SIP_OPTIONS_INTERVAL_SECONDS`: between two OPTIONS pings of a trunk with health_check on. */
    optionsIntervalSeconds: number;
    /**
     * Per-source flood throttle: `SIP_FLOOD_RATE` messages/s sustained and `SIP_FLOOD_BURST` at
     * once per source address (default 500 and 1000), nothing for `SIP_FLOOD_EXEMPT` (addresses
     * or CIDRs, comma-separated: a proxy in front of the node, carriers' signalling addresses).
     */
    flood: { ratePerSecond: number; burst: number; exempt: string[] };
    /** `SIP_MAX_WRITE_QUEUE_BYTES`: queued for one TCP/TLS peer that stopped reading, at most. */
    maxWriteQueueBytes: number;
    /**
     * `SIP_DNS_SERVERS`: the DNS servers (`address` or `address:port`, IPv6 in brackets with a port)
     * that termination hosts given by name are looked up on (RFC 3263); empty: the system's.
     */
    dnsServers: string[];
    /**
     * `SIP_FAILOVER_SECONDS`: an INVITE that drew no response at all for this long moves on to the
     * next destination of a name (RFC 3263) when one is left, instead of waiting out timer B; 0 off.
     */
    failoverSeconds: number;
  };
  /**
   * Overload control: `MAX_CONCURRENT_CALLS` and `MAX_CALLS_PER_SECOND`, each derived from the
   * node's measured event-loop delay and media load when unset (src/telephony/sip/overload.ts).
   */
  admission: { maxConcurrentCalls: number | undefined; maxCallsPerSecond: number | undefined };
  /** Browser voice: the web sessions' peer connections. */
  webrtc: {
    /** `WEBRTC_HOST` (default `SIP_HOST`): the address ICE host candidates bind to. */
    host: string;
    /** `WEBRTC_PUBLIC_IP`: also advertised in candidates, for a service behind a 1:1 NAT. */
    publicIp: string | undefined;
    /** `WEBRTC_ICE_SERVERS`: JSON array of RTCIceServer handed to browsers (STUN/TURN). */
    iceServers: IceServerConfig[];
    /** `WEBRTC_TURN_SECRET` and `WEBRTC_TURN_URLS`: a TURN server with per-session credentials. */
    turn: TurnRestConfig | null;
  };
  rateLimitPerMinute: number;
  /** RECORDING_RETENTION_DAYS: call recordings are deleted this long after their call ended. */
  recordingRetentionDays: number;
  webhookAllowedCidrs: string[];
  smtpUrl: string | undefined;
  logLevel: string;
  /** Master key for join tokens and secrets at rest; when unset it is kept in the data dir. */
  secretKey: string | undefined;
  /** `METRICS_TOKEN`: a bearer token that opens GET /metrics to clients other than loopback. */
  metricsToken: string | undefined;
  /**
   * `METRICS_PORT`: where a node without the API (roles `sip` and `worker`) answers GET /metrics and
   * GET /healthz, on HOST; unset: such a node serves no HTTP. Roles with the API serve both on PORT.
   */
  metricsPort: number | undefined;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: where traces go over OTLP/HTTP; unset: no traces. */
  otlpEndpoint: string | undefined;
  /** Request bodies above this many bytes get 413. */
  bodyLimitBytes: number;
  /** Maximum duration of one workflow execution. */
  maxExecutionSeconds: number;
  /** How long a session join token stays valid. */
  joinTokenTtlSeconds: number;
  /** Outbound ring timeout before a call ends as no_answer. */
  ringTimeoutSeconds: number;
  /**
   * LLM fallbacks, `LLM_FALLBACKS`: `llm_vendor_1=llm_vendor_2[:model],…` — when the first provider
   * fails before answering, the second answers instead. Checked when the providers are built.
   */
  llmFallbacks: string | undefined;
  /** Providers: `LLM_VENDOR_1_API_KEY`, `LLM_VENDOR_1_BASE_URL`, … keyed by provider id. */
  providers: Record<string, { apiKey: string | undefined; baseUrl: string | undefined }>;
  speech: {
    /**
     * `STT_VENDOR_1_PROTOCOL`: what stt_vendor_1 speaks when it has a key or base URL —
     * `deepgram` (live WebSocket, default) or `openai` (POST /v1/audio/transcriptions per utterance).
     */
    sttProtocol: SttProtocol;
    /** `STT_VENDOR_1_MODEL`: the vendor's model (the adapter's default when unset). */
    sttModel: string | undefined;
    /** `ESPEAK_NG_COMMAND`: the espeak-ng program (default `espeak-ng` on PATH). */
    espeakCommand: string;
  };
}

/** One `RTCIceServer` as a browser takes it. */
/** A TURN server whose credentials are minted per session (TURN REST API; config/ice-servers.ts). */
export interface TurnRestConfig {
  /** WEBRTC_TURN_URLS: the turn:/turns: URLs the credential is for. */
  urls: string[];
  /** WEBRTC_TURN_SECRET: coturn's static-auth-secret. */
  secret: string;
  /** WEBRTC_TURN_TTL_SECONDS (default 43200, 12 hours): how long a minted credential lasts. */
  ttlSeconds: number;
}

export interface IceServerConfig {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export const SIP_RINGBACKS = ['us', 'uk', 'eu', 'off'] as const;
export type SipRingback = (typeof SIP_RINGBACKS)[number];

export const STT_PROTOCOLS = ['deepgram', 'openai'] as const;
export type SttProtocol = (typeof STT_PROTOCOLS)[number];

export class ConfigError extends Error {}

/** The audio codecs SIP_CODECS may name, spelled as SDP writes them (names match in any case). */
export const SIP_CODEC_NAMES = ['PCMU', 'PCMA', 'opus'] as const;
export type SipCodecName = (typeof SIP_CODEC_NAMES)[number];
/** G.711 first: trunks end in the PSTN, where Opus buys nothing and costs an encoder per call. */
export const DEFAULT_SIP_CODECS: readonly SipCodecName[] = ['PCMU', 'PCMA', 'opus'];

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A whole number at least `min`, or undefined when unset (the caller derives a default). */
function optionalInt(env: Env, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return int(env, name, 0, min);
}

/** Comma-separated addresses or CIDR ranges (IPv4 or IPv6); empty when unset. */
function addressRanges(env: Env, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    const [addr, bits, extra] = item.split('/');
    const version = isIP(addr ?? '');
    const max = version === 4 ? 32 : 128;
    const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
    if (version === 0 || !okBits || extra !== undefined) {
      throw new ConfigError(`${name} must be addresses or CIDR ranges separated by commas, got "${item}"`);
    }
  }
  return items;
}

/**
 * Comma-separated DNS servers as `dns.Resolver#setServers` takes them: `1.2.3.4`, `1.2.3.4:5353`,
 * `::1` or `[::1]:5353`. A bad one stops the start rather than failing every lookup later.
 */
function dnsServers(env: Env, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(item) ?? /^([^:]+)(?::(\d+))?$/.exec(item);
    const [addr, port] = m ? [m[1]!, m[2]] : [item, undefined];
    const okPort = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (isIP(addr) === 0 || !okPort) {
      throw new ConfigError(
        `${name} must be IP addresses with optional ports separated by commas, got "${item}"`,
      );
    }
  }
  return items;
}

/**
 * A comma-separated codec list, e.g. `PCMA,pcmu`: known names only, each once, at least one. Unset
 * means the default; set but empty is a mistake worth stopping for, not a silent default.
 */
function codecList(env: Env, name: string): SipCodecName[] {
  const raw = env[name];
  if (raw === undefined) return [...DEFAULT_SIP_CODECS];
  const known = SIP_CODEC_NAMES.join(', ');
  const items = raw.split(',').map((s) => s.trim());
  if (items.every((s) => s === '')) throw new ConfigError(`${name} must name at least one of ${known}`);
  const codecs: SipCodecName[] = [];
  for (const item of items) {
    if (item === '') throw new ConfigError(`${name} has an empty entry in "${raw}"`);
    const codec = SIP_CODEC_NAMES.find((c) => c.toLowerCase() === item.toLowerCase());
    if (!codec) throw new ConfigError(`${name}: unknown codec "${item}" (known: ${known})`);
    if (codecs.includes(codec)) throw new ConfigError(`${name} names ${codec} more than once`);
    codecs.push(codec);
  }
  return codecs;
}

/**
 * WEBRTC_ICE_SERVERS: a JSON array of RTCIceServer (`urls` a stun:/turn:/turns: URL or a list of
 * them; `username` and `credential` strings). Checked here so a typo stops the start, not a call.
 */
function iceServers(env: Env, name: string): IceServerConfig[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be a JSON array of RTCIceServer objects`);
  }
  if (!Array.isArray(data)) throw new ConfigError(`${name} must be a JSON array of RTCIceServer objects`);
  return data.map((entry: unknown, i) => {
    const e = entry as Record<string, unknown> | null;
    const urls = e?.urls;
    const list = typeof urls === 'string' ? [urls] : Array.isArray(urls) ? urls : null;
    if (
      !e ||
      !list ||
      list.length === 0 ||
      !list.every((u) => typeof u === 'string' && /^(stun|turns?):/.test(u))
    ) {
      throw new ConfigError(`${name}[${i}].urls must be a stun:, turn: or turns: URL, or a list of them`);
    }
    for (const field of ['username', 'credential'] as const) {
      if (e[field] !== undefined && typeof e[field] !== 'string') {
        throw new ConfigError(`${name}[${i}].${field} must be a string`);
      }
    }
    return {
      urls: urls as string | string[],
      ...(typeof e.username === 'string' ? { username: e.username } : {}),
      ...(typeof e.credential === 'string' ? { credential: e.credential } : {}),
    };
  });
}

/**
 * WEBRTC_TURN_SECRET (coturn's static-auth-secret) with WEBRTC_TURN_URLS (comma-separated turn: or
 * turns: URLs): each browser gets a credential of its own, valid WEBRTC_TURN_TTL_SECONDS.
 */
function turnRest(env: Env): TurnRestConfig | null {
  const secret = env.WEBRTC_TURN_SECRET ?? '';
  const urls = (env.WEBRTC_TURN_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (secret === '' && urls.length === 0) return null;
  if (secret === '')
    throw new ConfigError("WEBRTC_TURN_URLS needs WEBRTC_TURN_SECRET (the TURN server's static-auth-secret)");
  if (urls.length === 0)
    throw new ConfigError('WEBRTC_TURN_SECRET needs WEBRTC_TURN_URLS (the turn: URLs it is for)');
  const bad = urls.find((u) => !/^turns?:/.test(u));
  if (bad)
    throw new ConfigError(`WEBRTC_TURN_URLS must list turn: or turns: URLs; got ${JSON.stringify(bad)}`);
  return { urls, secret, ttlSeconds: int(env, 'WEBRTC_TURN_TTL_SECONDS', 43_200, 60) };
}

function publicIp(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!isIP(raw)) throw new ConfigError(`${name} must be an IP address, got "${raw}"`);
  return raw;
}

/** What SWITCHBOARD_NODE_ID may be: short, printable, safe in logs and one column of the store. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The node id when SWITCHBOARD_NODE_ID is unset: the host name and the SIP port, which stay the
 * same across restarts of one node and differ between nodes on different hosts (and between two
 * nodes on one host, which cannot share a SIP port). Characters outside NODE_ID_PATTERN become
 * `-`; a name too long to fit keeps its start and gets a hash of the whole, so long names that
 * share a prefix stay apart.
 */
export function defaultNodeId(hostname: string, sipPort: number): string {
  const suffix = `:${sipPort}`;
  const room = 64 - suffix.length;
  let host = hostname.replace(/[^A-Za-z0-9._-]/g, '-') || 'localhost';
  if (host.length > room) {
    const hash = createHash('sha256').update(hostname).digest('hex').slice(0, 8);
    host = `${host.slice(0, room - hash.length - 1)}-${hash}`;
  }
  return `${host}${suffix}`;
}

function nodeId(env: Env, sipPort: number): string {
  const raw = env.SWITCHBOARD_NODE_ID;
  if (raw === undefined || raw === '') return defaultNodeId(os.hostname(), sipPort);
  if (!NODE_ID_PATTERN.test(raw)) {
    // JSON quoting keeps the message on one line whatever was pasted (a newline, a quote).
    throw new ConfigError(
      `SWITCHBOARD_NODE_ID must be 1 to 64 of A-Z a-z 0-9 . _ : -, got ${JSON.stringify(raw.slice(0, 80))}`,
    );
  }
  return raw;
}

export const PROVIDER_IDS = [
  'llm_vendor_1',
  'llm_vendor_2',
  'llm_vendor_3',
  'llm_vendor_4',
  'stt_vendor_1',
  'tts_vendor_1',
] as const;

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  }
  const sip = sipConfig(env);
  const speech = speechConfig(env);
  return {
    nodeId: nodeId(env, sip.port),
    dataDir: path.resolve(env.SWITCHBOARD_DATA_DIR || './data'),
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    host,
    port,
    publicBaseUrl: (
      env.PUBLIC_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    ).replace(/\/+$/, ''),
    sip,
    admission: {
      maxConcurrentCalls: optionalInt(env, 'MAX_CONCURRENT_CALLS', 1),
      maxCallsPerSecond: optionalInt(env, 'MAX_CALLS_PER_SECOND', 1),
    },
    webrtc: {
      host: env.WEBRTC_HOST || sip.host,
      publicIp: publicIp(env, 'WEBRTC_PUBLIC_IP'),
      iceServers: iceServers(env, 'WEBRTC_ICE_SERVERS'),
      turn: turnRest(env),
    },
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 120, 1),
    recordingRetentionDays: int(env, 'RECORDING_RETENTION_DAYS', 30, 1),
    webhookAllowedCidrs: (env.WEBHOOK_ALLOWED_CIDRS || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    smtpUrl: env.SMTP_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    secretKey: env.SWITCHBOARD_SECRET_KEY || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 9464, 0, 65535) : undefined,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    bodyLimitBytes: 1024 * 1024,
    maxExecutionSeconds: int(env, 'MAX_EXECUTION_SECONDS', 3600, 1),
    joinTokenTtlSeconds: int(env, 'JOIN_TOKEN_TTL_SECONDS', 3600, 1),
    ringTimeoutSeconds: int(env, 'RING_TIMEOUT_SECONDS', 30, 1),
    llmFallbacks: env.LLM_FALLBACKS || undefined,
    providers: providerKeys(env),
    speech,
  };
}

/** The SIP stack and its media: listeners, TLS, RTP ports, codecs, ringback, flood limits. */
function sipConfig(env: Env): Config['sip'] {
  const ringback = (env.SIP_RINGBACK || 'us').trim().toLowerCase();
  if (!(SIP_RINGBACKS as readonly string[]).includes(ringback)) {
    throw new ConfigError(`SIP_RINGBACK must be one of ${SIP_RINGBACKS.join(', ')}`);
  }
  const rtpPortMin = int(env, 'RTP_PORT_MIN', 20000, 1024, 65535);
  const rtpPortMax = int(env, 'RTP_PORT_MAX', 30000, 1024, 65535);
  if (rtpPortMax < rtpPortMin) throw new ConfigError('RTP_PORT_MAX must not be below RTP_PORT_MIN');
  // TLS is on when a certificate is given. Without SIP_TLS_KEY the certificate file is read for
  // the key as well (one PEM holding both); a key alone is a mistake, not "TLS off".
  const tlsCert = env.SIP_TLS_CERT || undefined;
  if (!tlsCert && env.SIP_TLS_KEY) throw new ConfigError('SIP_TLS_KEY is set but SIP_TLS_CERT is not');
  return {
    host: env.SIP_HOST || '127.0.0.1',
    port: int(env, 'SIP_PORT', 5060, 0, 65535),
    tlsPort: int(env, 'SIP_TLS_PORT', 5061, 0, 65535),
    tlsCert,
    tlsKey: tlsCert && (env.SIP_TLS_KEY || tlsCert),
    tlsCa: env.SIP_TLS_CA || undefined,
    nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS || undefined,
    domain: env.SIP_DOMAIN || 'sip.localhost',
    rtpPortMin,
    rtpPortMax,
    codecs: codecList(env, 'SIP_CODECS'),
    mediaWorkers: int(env, 'MEDIA_WORKERS', os.availableParallelism(), 0, 64),
    mediaWorkerNice: int(env, 'MEDIA_WORKER_NICE', -10, -20, 19),
    ringback: ringback as SipRingback,
    mediaTimeoutSeconds: int(env, 'MEDIA_TIMEOUT_SECONDS', 60, 0, 86_400),
    mediaHoldTimeoutSeconds: int(env, 'MEDIA_HOLD_TIMEOUT_SECONDS', 1800, 0, 86_400),
    trunkSyncSeconds: int(env, 'SIP_TRUNK_SYNC_SECONDS', 15, 1, 3600),
    optionsIntervalSeconds: int(env, 'SIP_OPTIONS_INTERVAL_SECONDS', 30, 5, 3600),
    flood: {
      ratePerSecond: int(env, 'SIP_FLOOD_RATE', 500, 1),
      burst: int(env, 'SIP_FLOOD_BURST', 1000, 1),
      exempt: addressRanges(env, 'SIP_FLOOD_EXEMPT'),
    },
    maxWriteQueueBytes: int(env, 'SIP_MAX_WRITE_QUEUE_BYTES', 1024 * 1024, 1024),
    dnsServers: dnsServers(env, 'SIP_DNS_SERVERS'),
    failoverSeconds: int(env, 'SIP_FAILOVER_SECONDS', 4, 0, 32),
  };
}

/** Each provider's API key and base URL (`<PROVIDER>_API_KEY`, `<PROVIDER>_BASE_URL`). */
function providerKeys(env: Env): Config['providers'] {
  const providers: Config['providers'] = {};
  for (const id of PROVIDER_IDS) {
    const prefix = id.toUpperCase();
    providers[id] = {
      apiKey: env[`${prefix}_API_KEY`] || undefined,
      baseUrl: env[`${prefix}_BASE_URL`] || undefined,
    };
  }
  return providers;
}

/** Speech recognition's protocol and model, and the local synthesizer's command. */
function speechConfig(env: Env): Config['speech'] {
  const sttProtocol = (env.STT_VENDOR_1_PROTOCOL || 'deepgram').toLowerCase();
  if (!(STT_PROTOCOLS as readonly string[]).includes(sttProtocol)) {
    throw new ConfigError(`STT_VENDOR_1_PROTOCOL must be one of ${STT_PROTOCOLS.join(', ')}`);
  }
  return {
    sttProtocol: sttProtocol as SttProtocol,
    sttModel: env.STT_VENDOR_1_MODEL || undefined,
    espeakCommand: env.ESPEAK_NG_COMMAND || 'espeak-ng',
  };
}
