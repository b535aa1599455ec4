// The UAS core's 2xx retransmission (RFC 3261 13.3.1.4): a 2xx to INVITE ends the server
// transaction, so the dialog layer resends it (T1 doubling up to T2) until the ACK arrives, and
// gives up after 64*T1, when it should end the call with BYE.
import type { Clock, TimerHandle } from '../../../shared/clock.js';
import type { SipResponse } from '../message/types.js';
import type { Destination, Sender, TimerValues } from './types.js';
import { DEFAULT_TIMERS } from './types.js';

export interface Retransmit2xxOptions {
  readonly clock: Clock;
  readonly send: Sender;
  readonly timers?: Partial<TimerValues>;
  /** No ACK within 64*T1. */
  readonly onNoAck?: () => void;
}

export class Retransmit2xx {
  private timer?: TimerHandle;
  private deadline?: TimerHandle;
  private done = false;
  private readonly t: TimerValues;

  constructor(
    private readonly response: SipResponse,
    private readonly destination: Destination,
    private readonly options: Retransmit2xxOptions,
  ) {
    this.t = { ...DEFAULT_TIMERS, ...options.timers };
  }

  /**
   * Sends the 2xx now (unless the server transaction just did) and, on unreliable transports,
   * again until ack(); reliable ones need no help.
   */
  start(sendNow = true): void {
    if (sendNow) this.options.send(this.response, this.destination);
    if (!this.destination.reliable) this.schedule(this.t.T1);
    this.deadline = this.options.clock.setTimeout(() => {
      if (this.done) return;
      this.stop();
      this.options.onNoAck?.();
    }, 64 * this.t.T1);
  }

  private schedule(ms: number): void {
    this.timer = this.options.clock.setTimeout(() => {
      if (this.done) return;
      this.options.send(this.response, this.destination);
      this.schedule(Math.min(ms * 2, this.t.T2));
    }, ms);
  }

  /** The ACK arrived (matched by the dialog on Call-ID, tags and CSeq number). */
  ack(): void {
    this.stop();
  }

  private stop(): void {
    this.done = true;
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    if (this.deadline) this.options.clock.clearTimeout(this.deadline);
  }
}
