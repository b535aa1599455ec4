// What every transport does with bytes that arrived: throttle the source, parse and check them,
// stamp Via, hand good messages up, answer bad requests with an error response, drop the rest,
// and count each outcome.
import type { Clock } from '../../../shared/clock.js';
import { emitTelemetry } from '../../../shared/telemetry.js';
import { buildErrorResponse } from '../message/error-response.js';
import { classifyInbound } from '../message/inbound.js';
import type { SipLimits } from '../message/limits.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import type { RequestPolicy } from '../message/validate.js';
import type { Destination } from '../transaction/types.js';
import type { Source } from './routing.js';
import { isReliable, responseDestination, stampVia } from './routing.js';
import type { ThrottleOptions } from './throttle.js';
import { SourceThrottle } from './throttle.js';

export interface InboundHandler {
  readonly onRequest: (req: SipRequest, source: Source) => void;
  readonly onResponse: (res: SipResponse, source: Source) => void;
}

export interface ReceiverStats {
  received: number;
  accepted: number;
  /** Answered with an error response (400, 416, 505, 513…). */
  answered: number;
  /** Dropped: unreadable, responses that failed checks, ACKs that failed checks. */
  discarded: number;
  throttled: number;
  /** The handler above threw; the message is dropped and the process lives on. */
  handlerErrors: number;
}

export interface ReceiverOptions {
  readonly clock: Clock;
  readonly handler: InboundHandler;
  readonly policy?: RequestPolicy;
  readonly limits?: Partial<SipLimits>;
  readonly throttle?: ThrottleOptions;
  /** Told about errors thrown by the handler (for the log); they never reach the socket. */
  readonly onError?: (error: unknown) => void;
}

export class Receiver {
  readonly stats: ReceiverStats = {
    received: 0,
    accepted: 0,
    answered: 0,
    discarded: 0,
    throttled: 0,
    handlerErrors: 0,
  };
  private readonly throttle: SourceThrottle;

  constructor(private readonly options: ReceiverOptions) {
    this.throttle = new SourceThrottle(options.clock, options.throttle);
  }

  /** Counts a source's message against its budget; false means drop it unread. */
  admit(source: Source): boolean {
    this.stats.received++;
    if (this.throttle.allow(source.address)) return true;
    this.stats.throttled++;
    emitTelemetry({ kind: 'sip.throttled', transport: source.transport });
    return false;
  }

  /**
   * Handles one whole message. `reply` sends raw bytes (an error response) to a destination.
   * Call admit() first; stream transports admit per message too.
   */
  handle(bytes: Uint8Array, source: Source, reply: (bytes: Buffer, to: Destination) => void): void {
    const verdict = classifyInbound(bytes, {
      stream: isReliable(source.transport),
      ...(this.options.policy ? { policy: this.options.policy } : {}),
      ...(this.options.limits ? { limits: this.options.limits } : {}),
    });
    if (verdict.action === 'discard') {
      this.stats.discarded++;
      return;
    }
    if (verdict.action === 'accept') {
      this.stats.accepted++;
      const m = verdict.message;
      try {
        if (m.kind === 'request') this.options.handler.onRequest(stampVia(m, source), source);
        else this.options.handler.onResponse(m, source);
      } catch (e) {
        // One bad handler run must not take the listener (and every other call) down with it.
        this.stats.handlerErrors++;
        this.options.onError?.(e);
      }
      return;
    }
    this.stats.answered++;
    if (verdict.request) {
      const stamped = stampVia(verdict.request, source);
      const bytesOut = buildErrorResponse(stamped, verdict.status, verdict.reason, {
        headers: verdict.headers,
      });
      if (bytesOut) reply(bytesOut, responseDestination(stamped.via[0], source));
      return;
    }
    const bytesOut = buildErrorResponse(verdict.error!, verdict.status, verdict.reason);
    if (bytesOut) reply(bytesOut, this.errorDestination(source));
  }

  /**
   * A request that did not parse is answered to the address it came from, not to its Via: that
   * Via was only salvaged, and trusting it would let forged datagrams aim our errors at others.
   */
  private errorDestination(source: Source): Destination {
    const reliable = isReliable(source.transport);
    return {
      transport: source.transport,
      host: source.address,
      port: source.port,
      reliable,
      ...(source.connectionId !== undefined ? { connectionId: source.connectionId } : {}),
    };
  }
}
