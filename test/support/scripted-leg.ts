// An outbound SIP leg a test plays instead of the wire: it records what the call asked of it
// (target, INVITE options, CANCELs, BYEs) and hands the test the events to answer with.
import type {
  InviteOptions,
  SipLeg,
  SipLegEvents,
  SipTarget,
} from '../../src/telephony/calls/outbound/sip-leg.js';

export class ScriptedLeg implements SipLeg {
  target?: SipTarget;
  options?: InviteOptions;
  cancels = 0;
  byes = 0;
  private handlers?: SipLegEvents;

  invite(target: SipTarget, options: InviteOptions, events: SipLegEvents): void {
    this.target = target;
    this.options = options;
    this.handlers = events;
  }

  cancel(): void {
    this.cancels++;
  }

  bye(): void {
    this.byes++;
  }

  get events(): SipLegEvents {
    if (!this.handlers) throw new Error('no INVITE was sent');
    return this.handlers;
  }
}
