// One REGISTER binding at a registrar (RFC 3261 10.2): registers, answers the digest challenge
// (auth-retry.ts), reads the granted expiry, refreshes before it ends, retries failures after a
// growing delay, keeps a TCP/TLS connection open with CRLF keep-alives (RFC 5626 4.4.1) and
// registers again when that connection is gone, and unregisters (Expires: 0) when stopped. It
// reports every change of state to its owner, which decides what to keep (the trunk manager
// writes it on the trunk). Time comes from the stack's Clock, so tests step it.
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import { retryWithCredentials } from '../auth-retry.js';
import { DigestClient } from '../digest.js';
import { getHeader } from '../message/access.js';
import { createRequest } from '../message/build.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import type { ClientHandlers } from '../transaction/client.js';
import type { Destination } from '../transaction/types.js';
import { expiryOf, retryAfterMs } from './expiry.js';

export type BindingStatus = 'registering' | 'registered' | 'failed';

export interface BindingState {
  readonly status: BindingStatus;
  /** Why the last attempt failed; null once registered. */
  readonly error: string | null;
  /** When the registrar drops the binding unless refreshed (epoch ms); null when not registered. */
  readonly until: number | null;
}

/** What a binding needs of the SIP stack (SipStack has all of it). */
export interface RegistrarStack {
  readonly clock: Clock;
  readonly transactions: {
    sendRequest(req: SipRequest, to: Destination, handlers: ClientHandlers): unknown;
  };
  keepAlive(to: Destination): boolean;
}

export interface BindingOptions {
  readonly stack: RegistrarStack;
  /** Where REGISTER goes on the wire. */
  readonly destination: Destination;
  /** The Request-URI: the registrar's domain, `sip:host[:port]` (RFC 3261 10.2). */
  readonly registrar: string;
  /** The address of record, in To and From: `sip:user@domain`. */
  readonly aor: string;
  /** Our Contact URI, where the registrar sends calls. */
  readonly contact: string;
  /** Our sent-by for the Via header, `host:port`. */
  readonly via: string;
  readonly username: string;
  readonly password: string;
  /** Unique strings for the Call-ID, tags and branches. */
  readonly newId: () => string;
  readonly onChange: (state: BindingState) => void;
  /** Seconds asked for. Default 3600. */
  readonly expires?: number;
  /** First retry after a failure, doubled each time up to maxRetryMs. Default 5 s, 5 min. */
  readonly firstRetryMs?: number;
  readonly maxRetryMs?: number;
  /** CRLF keep-alives over TCP/TLS. Default 30 s. */
  readonly keepAliveMs?: number;
  readonly userAgent?: string;
}

/** Challenges answered per attempt: a second 401 after our answer means the password is wrong. */
const MAX_CHALLENGES = 2;

export class RegisterBinding {
  private readonly callId: string;
  private readonly fromTag: string;
  private readonly digest: DigestClient;
  private cseq = 0;
  private expires: number;
  private retryMs: number;
  private timer: TimerHandle | null = null;
  private keepAliveTimer: TimerHandle | null = null;
  /** Which attempt a response belongs to: a response to an older one is ignored. */
  private attempt = 0;
  private stopped = false;
  private current: BindingState = { status: 'registering', error: null, until: null };

  constructor(private readonly o: BindingOptions) {
    // One Call-ID for every REGISTER of this binding (RFC 3261 10.2.4: refreshes reuse it).
    this.callId = `${o.newId()}@switchboard`;
    this.fromTag = o.newId().slice(0, 16);
    this.digest = new DigestClient({ username: o.username, password: o.password });
    this.expires = o.expires ?? 3600;
    this.retryMs = o.firstRetryMs ?? 5_000;
  }

  get state(): BindingState {
    return this.current;
  }

  private get clock(): Clock {
    return this.o.stack.clock;
  }

  /** Registers now; every later step runs on the clock. */
  start(): void {
    this.send(this.expires);
  }

  /**
   * Stops every timer and, when registered, sends REGISTER with Expires: 0 (best effort: resolves
   * on its answer, its timeout, or at once when there is nothing to remove).
   */
  stop(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.stopped = true;
    this.clearTimers();
    if (this.current.status !== 'registered') return Promise.resolve();
    return new Promise((resolve) => this.send(0, resolve));
  }

  private clearTimers(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    if (this.keepAliveTimer) this.clock.clearTimeout(this.keepAliveTimer);
    this.timer = null;
    this.keepAliveTimer = null;
  }

  private change(next: BindingState): void {
    this.current = next;
    if (!this.stopped) this.o.onChange(next);
  }

  private request(expires: number): SipRequest {
    const o = this.o;
    this.cseq++;
    return createRequest({
      method: 'REGISTER',
      uri: o.registrar,
      headers: [
        ['Via', `SIP/2.0/${o.destination.transport} ${o.via};branch=z9hG4bK${o.newId()};rport`],
        ['Max-Forwards', '70'],
        ['From', `<${o.aor}>;tag=${this.fromTag}`],
        ['To', `<${o.aor}>`],
        ['Call-ID', this.callId],
        ['CSeq', `${this.cseq} REGISTER`],
        ['Contact', `<${o.contact}>`],
        ['Expires', String(expires)],
        ['User-Agent', o.userAgent ?? 'Switchboard'],
      ],
    });
  }

  /** A new attempt: a REGISTER asking for `expires` seconds; `done` is the unregister's end. */
  private send(expires: number, done?: () => void): void {
    const attempt = ++this.attempt;
    let challenges = 0;
    let briefs = 0;
    const go = (req: SipRequest): void => {
      this.o.stack.transactions.sendRequest(req, this.o.destination, {
        onResponse: (res) => {
          if (res.status < 200) return;
          if (done) return done();
          if (attempt !== this.attempt || this.stopped) return;
          if (res.status === 401 || res.status === 407) {
            const retry =
              ++challenges <= MAX_CHALLENGES
                ? retryWithCredentials(req, res, this.digest, { branch: `z9hG4bK${this.o.newId()}` })
                : undefined;
            if (retry) {
              this.cseq = retry.cseq.seq;
              return go(retry);
            }
            return this.failed(`${res.status} ${res.reason}: the registrar refused the credentials`);
          }
          if (res.status === 423 && ++briefs <= 1) {
            // Interval Too Brief (RFC 3261 10.2.8): ask again for at least Min-Expires.
            const min = Number(getHeader(res, 'Min-Expires'));
            if (Number.isInteger(min) && min > 0 && min < 2 ** 31) {
              this.expires = Math.max(this.expires, min);
              return go(this.request(this.expires));
            }
          }
          if (res.status >= 300) return this.failed(`${res.status} ${res.reason}`, retryAfterMs(res));
          this.registered(res);
        },
        onTimeout: () => {
          if (done) return done();
          if (attempt === this.attempt) this.failed('no answer from the registrar');
        },
        onTransportError: (_tx, error) => {
          if (done) return done();
          if (attempt === this.attempt)
            this.failed(`transport error${error ? `: ${error.message}` : ''} sending to the registrar`);
        },
      });
    };
    try {
      go(this.request(expires));
    } catch (err) {
      // A Contact or AOR that does not build a request: nothing to retry with.
      if (done) return done();
      this.failed(`cannot build the REGISTER: ${(err as Error).message}`);
    }
  }

  private registered(res: SipResponse): void {
    const granted = expiryOf(res, this.o.contact, this.expires);
    if (granted <= 0) return this.failed('the registrar kept no binding for our Contact');
    const now = this.clock.now();
    this.retryMs = this.o.firstRetryMs ?? 5_000;
    this.change({ status: 'registered', error: null, until: now + granted * 1000 });
    // Refresh at half time or a minute before the end, whichever is later: room for a retry.
    const refreshIn = Math.max(granted / 2, granted - 60) * 1000;
    this.schedule(refreshIn);
    this.armKeepAlive();
  }

  private failed(error: string, retryAfter?: number): void {
    const delay = retryAfter ?? this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.o.maxRetryMs ?? 300_000);
    this.change({ status: 'failed', error, until: null });
    this.schedule(delay);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.send(this.expires);
    }, ms);
  }

  /** Over TCP/TLS: keep the connection alive; when it is gone, register again on a new one. */
  private armKeepAlive(): void {
    if (!this.o.destination.reliable || this.keepAliveTimer) return;
    const tick = (): void => {
      this.keepAliveTimer = null;
      if (this.stopped || this.current.status !== 'registered') return;
      if (!this.o.stack.keepAlive(this.o.destination)) {
        // The carrier can no longer reach us through that connection: a new binding on a new one.
        this.change({ status: 'registering', error: null, until: null });
        this.send(this.expires);
        return;
      }
      this.keepAliveTimer = this.clock.setTimeout(tick, this.o.keepAliveMs ?? 30_000);
    };
    this.keepAliveTimer = this.clock.setTimeout(tick, this.o.keepAliveMs ?? 30_000);
  }
}
