// The node's Prometheus metrics (GET /metrics, served by src/api/plugins/metrics.ts). Names start
// `switchboard_`; beside them, prom-client's default process and Node.js metrics (CPU, memory,
// handles, GC, and event-loop delay as nodejs_eventloop_lag_* percentiles).
//
// Where each figure comes from:
// - counters and histograms of calls, media and webhook attempts: the telemetry events the call,
//   media and webhook code emits (src/shared/telemetry.ts), observed here;
// - gauges of what exists right now (this node's live calls, the webhook queue, the health and
//   registration of the trunks that ask for them): read from the
//   store when Prometheus scrapes, so they are right after a restart and on every node at once;
// - HTTP request durations: the API's onResponse hook calls observeRequest();
// - refused calls, admission limits, throttled SIP messages and connections closed for a full
//   write queue: telemetry events of the SIP stack and admission, observed here too.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../shared/clock.js';
import { observeTelemetry, type TelemetryEvent } from '../shared/telemetry.js';
import type { Executor } from '../store/database.js';
import { metricsRepo, type QueueState } from './metrics.repo.js';

export interface MetricsOptions {
  db: Executor;
  clock: Clock;
  /** SWITCHBOARD_NODE_ID: whose live calls the calls_active gauge counts. */
  nodeId: string;
  /** prom-client's default process and Node.js metrics; off in tests that build many. */
  defaultMetrics?: boolean;
}

export interface Metrics {
  readonly registry: Registry;
  /** Prometheus text of every metric (reads the store for the gauges). */
  render(): Promise<string>;
  /** One answered HTTP request; `route` is the route's pattern, never the raw URL. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** Stops observing the telemetry events. */
  close(): void;
}

// Call set-up: a loopback INVITE answers in milliseconds, a carrier's in well under a second;
// outbound calls include ringing, so the top buckets reach the ring timeout.
const SETUP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const JITTER_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32];
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  registerLiveCallGauge(registers, options);
  const calls = callInstruments(registers);
  registerWebhookQueueGauges(registers, options);
  registerTrunkGauges(registers, options);
  const delivery = new Histogram({
    name: 'switchboard_webhook_delivery_seconds',
    help: 'Duration of each webhook delivery attempt from request to response, by outcome',
    labelNames: ['outcome'] as const,
    buckets: DELIVERY_BUCKETS,
    registers,
  });
  const http = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const overload = overloadInstruments(registers);
  const stop = observeTelemetry(telemetryObserver({ ...calls, delivery, ...overload }));

  return {
    registry,
    render: () => registry.metrics(),
    observeRequest(method, route, status, seconds) {
      http.observe({ method, route, status_code: String(status) }, seconds);
    },
    close() {
      stop();
      registry.clear();
    },
  };
}

type Registers = Registry[];

/** One read shared by the gauges that collect in the same scrape (see registerWebhookQueueGauges). */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= read().finally(() => {
      pending = null;
    }));
}

/** This node's live calls, read from the store at scrape time. */
function registerLiveCallGauge(registers: Registers, { db, nodeId }: MetricsOptions): void {
  new Gauge({
    name: 'switchboard_calls_active',
    help: 'Calls live on this node (queued, ringing or in progress) by direction and status, read from the store at scrape time',
    labelNames: ['direction', 'status'] as const,
    registers,
    async collect() {
      this.reset();
      for (const r of await metricsRepo.liveCalls(db, nodeId)) {
        this.set({ direction: r.direction, status: r.status }, r.count);
      }
    },
  });
}

/** Calls ended and answered, and the RTP streams they closed: fed by telemetry events. */
function callInstruments(registers: Registers) {
  const callsTotal = new Counter({
    name: 'switchboard_calls_total',
    help: 'Calls that ended on this node, by direction and final status',
    labelNames: ['direction', 'status'] as const,
    registers,
  });
  const setup = new Histogram({
    name: 'switchboard_call_setup_seconds',
    help: 'From a call row being created (INVITE received, POST /calls) to the call being answered',
    labelNames: ['direction'] as const,
    buckets: SETUP_BUCKETS,
    registers,
  });
  const rtpExpected = new Counter({
    name: 'switchboard_rtp_packets_expected_total',
    help: 'RTP packets expected from remote parties over closed streams (RFC 3550 A.3)',
    registers,
  });
  const rtpLost = new Counter({
    name: 'switchboard_rtp_packets_lost_total',
    help: 'RTP packets lost by remote parties over closed streams (expected minus received)',
    registers,
  });
  const jitter = new Histogram({
    name: 'switchboard_rtp_jitter_seconds',
    help: 'Interarrival jitter of each closed incoming RTP stream at its end (RFC 3550 A.8)',
    buckets: JITTER_BUCKETS,
    registers,
  });
  const mediaTimeouts = new Counter({
    name: 'switchboard_calls_media_timeout_total',
    help: 'Connected calls (and dialled legs) hung up because the far end sent no RTP or RTCP for MEDIA_TIMEOUT_SECONDS (MEDIA_HOLD_TIMEOUT_SECONDS while it held the call), by direction',
    labelNames: ['direction'] as const,
    registers,
  });
  return { callsTotal, setup, rtpExpected, rtpLost, jitter, mediaTimeouts };
}

/** The webhook queue's depth and age, read from the store at scrape time. */
function registerWebhookQueueGauges(registers: Registers, { db, clock }: MetricsOptions): void {
  // The two gauges share one read per scrape: prom-client starts every gauge's collect() before
  // awaiting any, so the second one joins the read the first began.
  const webhookQueue: () => Promise<QueueState> = sharedRead(() => metricsRepo.webhookQueue(db));
  new Gauge({
    name: 'switchboard_webhook_queue_depth',
    help: 'Webhook deliveries pending (due or waiting to retry), read from the store at scrape time',
    registers,
    async collect() {
      this.set((await webhookQueue()).depth);
    },
  });
  new Gauge({
    name: 'switchboard_webhook_oldest_pending_seconds',
    help: 'Age of the oldest pending webhook delivery; 0 when none is pending',
    registers,
    async collect() {
      const q = await webhookQueue();
      this.set(q.oldest === null ? 0 : Math.max(0, clock.now() - Date.parse(q.oldest)) / 1000);
    },
  });
}

/** Health and registration of the trunks that ask for them, read from the store at scrape time. */
function registerTrunkGauges(registers: Registers, { db }: MetricsOptions): void {
  // One read per scrape, as the webhook gauges share theirs.
  const watchedTrunks = sharedRead(() => metricsRepo.watchedTrunks(db));
  new Gauge({
    name: 'switchboard_sip_trunk_up',
    help: 'Trunks with health_check on: 1 while the termination host answers OPTIONS, 0 while it is down (absent until the first finding)',
    labelNames: ['sip_trunk_id'] as const,
    registers,
    async collect() {
      this.reset();
      for (const t of await watchedTrunks()) {
        if (t.health_check === 1 && (t.health === 'up' || t.health === 'down'))
          this.set({ sip_trunk_id: t.id }, t.health === 'up' ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'switchboard_sip_trunk_registered',
    help: 'Trunks with register on: 1 while the carrier holds our binding, 0 while registering or failed',
    labelNames: ['sip_trunk_id'] as const,
    registers,
    async collect() {
      this.reset();
      for (const t of await watchedTrunks()) {
        if (t.register === 1)
          this.set({ sip_trunk_id: t.id }, t.registration_status === 'registered' ? 1 : 0);
      }
    },
  });
}

/**
 * Overload control and bad input (src/telephony/sip/overload.ts, transport/throttle.ts,
 * stream.ts): refused calls, admission limits, throttled messages, closed connections.
 */
function overloadInstruments(registers: Registers) {
  const refused = new Counter({
    name: 'switchboard_calls_refused_total',
    help: 'Inbound INVITEs refused before a call was set up, by reason (max_concurrent_calls, max_calls_per_second, draining, unknown_domain, unknown_workspace, unknown_number, source_forbidden, media_unsupported, no_dispatch_rule, workflow_unpublished, quota_exhausted)',
    labelNames: ['reason'] as const,
    registers,
  });
  const admissionLimit = new Gauge({
    name: 'switchboard_admission_limit',
    help: 'Admission limits in force on this node (MAX_CONCURRENT_CALLS and MAX_CALLS_PER_SECOND, or what the node derived from its load), by limit',
    labelNames: ['limit'] as const,
    registers,
  });
  const admissionDelay = new Gauge({
    name: 'switchboard_admission_loop_delay_seconds',
    help: 'Event-loop delay p99 over the last admission window, as overload control measured it',
    registers,
  });
  const throttled = new Counter({
    name: 'switchboard_sip_messages_throttled_total',
    help: 'SIP messages dropped unread because their source address sent more than SIP_FLOOD_RATE/SIP_FLOOD_BURST allow, by transport',
    labelNames: ['transport'] as const,
    registers,
  });
  const overflowed = new Counter({
    name: 'switchboard_sip_connections_write_queue_full_total',
    help: 'TCP/TLS connections closed because the peer stopped reading and more than SIP_MAX_WRITE_QUEUE_BYTES queued for it, by transport',
    labelNames: ['transport'] as const,
    registers,
  });
  return { refused, admissionLimit, admissionDelay, throttled, overflowed };
}

type EventInstruments = ReturnType<typeof callInstruments> &
  ReturnType<typeof overloadInstruments> & { delivery: Histogram<'outcome'> };

/** Feeds each telemetry event into the instrument that counts it. */
function telemetryObserver(m: EventInstruments): (e: TelemetryEvent) => void {
  return (e) => {
    switch (e.kind) {
      case 'call.answered':
        m.setup.observe({ direction: e.direction }, e.setupSeconds);
        return;
      case 'call.ended':
        m.callsTotal.inc({ direction: e.direction, status: e.status });
        // A rise here is peers vanishing without a BYE (crashes, NAT mappings that died).
        if (e.reason === 'media_timeout') m.mediaTimeouts.inc({ direction: e.direction });
        return;
      case 'rtp.closed':
        m.rtpExpected.inc(e.expected);
        m.rtpLost.inc(e.lost);
        m.jitter.observe(e.jitterSeconds);
        return;
      case 'webhook.attempt':
        m.delivery.observe({ outcome: e.ok ? 'succeeded' : 'failed' }, e.seconds);
        return;
      case 'call.refused':
        m.refused.inc({ reason: e.reason });
        return;
      case 'admission.limits':
        m.admissionLimit.set({ limit: 'concurrent_calls' }, e.concurrentCalls);
        m.admissionLimit.set({ limit: 'calls_per_second' }, e.callsPerSecond);
        m.admissionDelay.set(e.loopDelaySeconds);
        return;
      case 'sip.throttled':
        m.throttled.inc({ transport: e.transport });
        return;
      case 'sip.write_queue_full':
        m.overflowed.inc({ transport: e.transport });
        return;
    }
  };
}
