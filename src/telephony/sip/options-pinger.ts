// OPTIONS pings to one host (RFC 3261 11): is a trunk's termination host answering SIP? Every
// `intervalMs` one OPTIONS goes out as its own transaction; any final response within `timeoutMs`
// (404 and 405 included: a host that refuses OPTIONS still answers SIP) counts as an answer,
// except 503 (the host says it is not taking requests). `downAfter` failures in a row (no answer
// in time, a transport error, a 503) make the host `down`; one answer makes it `up` again. The
// owner hears only changes. Time comes from the stack's Clock, so tests step it.
import type { Clock, TimerHandle } from '../../shared/clock.js';
import { createRequest } from './message/build.js';
import type { SipRequest } from './message/types.js';
import type { ClientHandlers } from './transaction/client.js';
import type { Destination } from './transaction/types.js';

export type PingHealth = 'up' | 'down';

/** What a pinger needs of the SIP stack (SipStack has all of it). */
export interface PingStack {
  readonly clock: Clock;
  readonly transactions: {
    sendRequest(req: SipRequest, to: Destination, handlers: ClientHandlers): unknown;
  };
}

export interface PingerOptions {
  readonly stack: PingStack;
  readonly destination: Destination;
  /** The Request-URI: `sip:host[:port]`. */
  readonly uri: string;
  /** Our sent-by for the Via header, `host:port`, and the From host. */
  readonly via: string;
  readonly newId: () => string;
  readonly onChange: (health: PingHealth, why: string | null) => void;
  /** Default 30 s. */
  readonly intervalMs?: number;
  /** How long one ping may go unanswered. Default 5 s. */
  readonly timeoutMs?: number;
  /** Failures in a row before `down`. Default 2. */
  readonly downAfter?: number;
}

export const PING_DEFAULTS = { intervalMs: 30_000, timeoutMs: 5_000, downAfter: 2 } as const;

export class OptionsPinger {
  private timer: TimerHandle | null = null;
  private deadline: TimerHandle | null = null;
  private failures = 0;
  private round = 0;
  private stopped = false;
  private health: PingHealth | null = null;
  constructor(private readonly o: PingerOptions) {}

  private get clock(): Clock {
    return this.o.stack.clock;
  }

  /** Pings now, then every interval. */
  start(): void {
    this.ping();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    if (this.deadline) this.clock.clearTimeout(this.deadline);
    this.timer = this.deadline = null;
  }

  private ping(): void {
    if (this.stopped) return;
    const round = ++this.round;
    const o = this.o;
    let settled = false;
    const settle = (why: string | null): void => {
      if (settled || round !== this.round || this.stopped) return;
      settled = true;
      if (this.deadline) this.clock.clearTimeout(this.deadline);
      this.deadline = null;
      this.result(why);
      this.timer = this.clock.setTimeout(() => this.ping(), o.intervalMs ?? PING_DEFAULTS.intervalMs);
    };
    this.deadline = this.clock.setTimeout(
      () => settle('no answer to OPTIONS'),
      o.timeoutMs ?? PING_DEFAULTS.timeoutMs,
    );
    // Each ping its own Call-ID (an OPTIONS outside a dialog is a request of its own).
    const req = createRequest({
      method: 'OPTIONS',
      uri: o.uri,
      headers: [
        ['Via', `SIP/2.0/${o.destination.transport} ${o.via};branch=z9hG4bK${o.newId()};rport`],
        ['Max-Forwards', '70'],
        ['From', `<sip:ping@${o.via}>;tag=${o.newId().slice(0, 16)}`],
        ['To', `<${o.uri}>`],
        ['Call-ID', `${o.newId()}@switchboard`],
        ['CSeq', '1 OPTIONS'],
        ['Accept', 'application/sdp'],
        ['User-Agent', 'Switchboard'],
      ],
    });
    try {
      o.stack.transactions.sendRequest(req, o.destination, {
        onResponse: (res) => {
          if (res.status < 200) return;
          settle(res.status === 503 ? `503 ${res.reason}` : null);
        },
        onTimeout: () => settle('no answer to OPTIONS'),
        onTransportError: (_tx, error) => settle(`transport error${error ? `: ${error.message}` : ''}`),
      });
    } catch (err) {
      settle(`could not send OPTIONS: ${(err as Error).message}`);
    }
  }

  /** `why` null: answered. */
  private result(why: string | null): void {
    if (why === null) {
      this.failures = 0;
      return this.set('up', null);
    }
    this.failures++;
    if (this.failures >= (this.o.downAfter ?? PING_DEFAULTS.downAfter)) this.set('down', why);
  }

  private set(health: PingHealth, why: string | null): void {
    if (this.health === health) return;
    this.health = health;
    this.o.onChange(health, why);
  }
}
