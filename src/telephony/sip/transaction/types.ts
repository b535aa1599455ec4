// Shared pieces of the transaction layer (RFC 3261 17): where a message goes, how it is sent,
// the timer values, and the base every transaction builds on.
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import type { SipMessage } from '../message/types.js';

export type TransportName = 'UDP' | 'TCP' | 'TLS' | 'WS' | 'WSS';

/** A peer as the transport layer knows it; `reliable` turns retransmissions off (RFC 3261 17.1.1.2). */
export interface Destination {
  readonly transport: TransportName;
  readonly host: string;
  readonly port: number;
  readonly reliable: boolean;
  /** The connection a request came in on, so responses can go back on it (RFC 3261 18.2.2). */
  readonly connectionId?: string;
}

/**
 * Sends one message; a thrown error or false means the transport failed (RFC 3261 17.1.4). A
 * failure found only later (a TCP or TLS connection that could not be opened, a name that did not
 * resolve) is reported through `onError`, once, if the transport knows of it.
 */
export type Sender = (
  message: SipMessage,
  destination: Destination,
  onError?: (error: Error) => void,
) => boolean | void;

export interface TimerValues {
  /** RTT estimate, 500 ms. */
  readonly T1: number;
  /** Longest retransmit interval for non-INVITE requests and INVITE responses, 4 s. */
  readonly T2: number;
  /** Longest time a message stays in the network, 5 s. */
  readonly T4: number;
}

export const DEFAULT_TIMERS: TimerValues = { T1: 500, T2: 4000, T4: 5000 };

export interface TransactionContext {
  readonly clock: Clock;
  readonly send: Sender;
  readonly timers: TimerValues;
  /** Called once when a transaction reaches Terminated, so the owner forgets it. */
  readonly onTerminated: (tx: Transaction) => void;
}

/** State and named timers common to the four transaction machines. */
export abstract class Transaction {
  abstract readonly key: string;
  protected abstract stateName: string;
  private readonly running = new Map<string, TimerHandle>();
  private ended = false;

  constructor(
    protected readonly ctx: TransactionContext,
    readonly destination: Destination,
  ) {}

  get state(): string {
    return this.stateName;
  }

  get terminated(): boolean {
    return this.ended;
  }

  /** Starts (or restarts) a named timer; RFC 3261's letters are the names. */
  protected startTimer(name: string, ms: number, fire: () => void): void {
    this.stopTimer(name);
    this.running.set(
      name,
      this.ctx.clock.setTimeout(() => {
        this.running.delete(name);
        if (!this.ended) fire();
      }, ms),
    );
  }

  protected stopTimer(name: string): void {
    const h = this.running.get(name);
    if (h) this.ctx.clock.clearTimeout(h);
    this.running.delete(name);
  }

  /** Timers that are running now, for tests and diagnostics. */
  activeTimers(): string[] {
    return [...this.running.keys()].sort();
  }

  protected transmit(message: SipMessage): boolean {
    try {
      return (
        this.ctx.send(message, this.destination, (error) => {
          if (!this.ended) this.transportFailedLater(error);
        }) !== false
      );
    } catch {
      return false;
    }
  }

  /**
   * The transport took a message and then could not deliver it (a connection refused, a failed
   * TLS handshake): the transaction ends at once instead of waiting for its timeout (17.1.4).
   */
  protected abstract transportFailedLater(error: Error): void;

  /**
   * Ends the transaction at once and silently: its timers stop and its owner hears nothing. For a
   * stack that is closing, whose sockets can carry nothing more.
   */
  close(): void {
    this.terminate();
  }

  protected terminate(): void {
    if (this.ended) return;
    this.ended = true;
    this.stateName = 'Terminated';
    for (const h of this.running.values()) this.ctx.clock.clearTimeout(h);
    this.running.clear();
    this.ctx.onTerminated(this);
  }

  /** Runs fn now for reliable transports (timer value zero), else after ms. */
  protected afterUnlessReliable(name: string, ms: number, fn: () => void): void {
    if (this.destination.reliable) fn();
    else this.startTimer(name, ms, fn);
  }
}
