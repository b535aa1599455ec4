// What the running service tells whoever observes it (the Prometheus metrics in src/ops/metrics.ts,
// tests): a call answered or ended, a media stream closed with its loss and jitter, a webhook
// attempt made. The code that does the work only emits these plain events; it knows nothing of
// prom-client or of who listens, so the call and media code carry one line of glue each.
//
// Observers live in one process-wide set, like the process itself: a node's metrics describe the
// node, whichever wiring (or test) made the call. Emitting with no observer costs a size check.

export type TelemetryEvent =
  /** A call went in_progress: `setupSeconds` from its row's creation (INVITE or POST /calls) to then. */
  | { kind: 'call.answered'; direction: string; setupSeconds: number }
  /** A call reached a final status on this node. */
  | { kind: 'call.ended'; direction: string; status: string; reason: string }
  /** An RTP stream closed: its receiving side's counts (RFC 3550 A.3) and last jitter estimate. */
  | { kind: 'rtp.closed'; expected: number; lost: number; jitterSeconds: number }
  /** One webhook delivery attempt, from request to response (or error). */
  | { kind: 'webhook.attempt'; ok: boolean; seconds: number }
  /** A new inbound call refused before admission read anything (overload control, draining). */
  | { kind: 'call.refused'; reason: string }
  /** The node's admission limits after a measuring window (src/telephony/sip/overload.ts). */
  | { kind: 'admission.limits'; concurrentCalls: number; callsPerSecond: number; loopDelaySeconds: number }
  /** A SIP message dropped unread because its source sent more than its share (flood throttle). */
  | { kind: 'sip.throttled'; transport: string }
  /** A TCP or TLS connection closed because its peer stopped reading and our queue to it filled. */
  | { kind: 'sip.write_queue_full'; transport: string };

export type TelemetryObserver = (event: TelemetryEvent) => void;

const observers = new Set<TelemetryObserver>();

/** Adds an observer; the returned function removes it. */
export function observeTelemetry(observer: TelemetryObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** Tells every observer; an observer that throws never reaches the code that emitted. */
export function emitTelemetry(event: TelemetryEvent): void {
  if (observers.size === 0) return;
  for (const observer of observers) {
    try {
      observer(event);
    } catch {
      // Observation must not change what it observes.
    }
  }
}
