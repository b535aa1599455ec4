// The seams between a live call (live-call.ts) and its second legs (transfer*.ts): what a
// transferer gets to work with when a workflow's transfer_call (blind, REFER) or transfer_to_human
// (warm: a second leg, an announcement, a bridge) runs on a live call, and what the dialler of a
// `dial` node gets (the same context: a second leg bridged to the caller, no announcement). The
// live call owns the caller's leg and media; a transferer or dialler borrows them and reports how
// it went.
import type { TransferOptions, TransferOutcome } from '../../../channels/channel.js';
import type { AnsweredBy } from '../../../audio/amd.js';
import type { ServiceDeps } from '../../../modules/context.js';
import type { CallRecord, CallRecords } from '../../../modules/calls/call-records.service.js';
import type { RtpPortAllocator } from '../../media/port-allocator.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { SharedPacer } from '../../media/shared-pacer.js';
import type { DialogRequests } from '../../sip/dialog-requests.js';
import type { SipStack } from '../../sip/stack.js';
import type { UacLegOptions } from '../../sip/uac-leg.js';

export type { TransferOptions, TransferOutcome } from '../../../channels/channel.js';

/** Everything a transfer of one live call may use. */
export interface TransferContext {
  /**
   * The caller's leg (inbound: our UAS leg; outbound: our UAC leg), established. Send REFER or a
   * re-INVITE with `sendInDialog`; to see the far end's NOTIFYs, install a handler with
   * `onRequest` and give the previous one back when done: the call host's own handler (INFO DTMF,
   * re-INVITE, UPDATE) is `restoreRequests`.
   */
  leg: DialogRequests;
  /** Puts the call host's in-dialog handler back on `leg` (after the transfer took it over). */
  restoreRequests: () => void;
  /** The caller's media: bound, started, with the negotiated codec. */
  rtp: RtpSession;
  /** The call row as it was when the call connected (id, workspace, numbers, trunk's number). */
  call: CallRecord;
  /** Where the trunk of the call is looked up (default: the call records service over deps). */
  records?: CallRecords;
  /** The store, clock, ids, config, secret box (trunk passwords) and logger. */
  deps: ServiceDeps;
  /** The SIP stack, for a second leg (warm transfer). */
  stack: SipStack;
  /** Our SIP address as peers see it (Via sent-by, Contact). */
  local: { host: string; port: number };
  /** RTP ports and the node's frame timer, for the second leg's media. */
  ports: RtpPortAllocator;
  pacer?: SharedPacer;
  /** MEDIA_TIMEOUT_SECONDS in ms: a bridged second leg whose party went silent is hung up (0: never). */
  mediaTimeoutMs?: number;
  /** MEDIA_HOLD_TIMEOUT_SECONDS in ms: the same while that party holds the call (0: never). */
  mediaHoldTimeoutMs?: number;
  /**
   * Waits for the INVITE's slot to a carrier host that caps the call rate (carrier_a: 30 per
   * second), the node's one pacing shared with POST /calls; without it the leg is not paced.
   */
  pace?: (host: string, perSecond: number) => Promise<void>;
  /** RFC 3263: the destinations of a termination host given by name (UacLegOptions.resolve). */
  resolve?: UacLegOptions['resolve'];
  /**
   * Aborted when the caller hangs up (their BYE) or the process hangs the call up (shutdown): a
   * transferer stops what it is doing, and a bridge tears down its second leg.
   */
  callerGone: AbortSignal;
  /**
   * Stops the call host's own use of the caller's media (the phone channel's playback and
   * listening) while a warm transfer bridges it; `resume` gives it back when the transfer failed.
   */
  suspendMedia: () => void;
  resumeMedia: () => void;
  /** Characters the transfer sent to TTS (a warm transfer's announcement), metered with the call. */
  meterTts?: (characters: number) => void;
  /**
   * The caller's key presses, RFC 4733 and SIP INFO alike (a press sent both ways is one), go to
   * `listener` instead of the phone channel until the returned function is called (a bridge
   * passes them to the other party while the call's own media is suspended).
   */
  callerDigits?: (listener: (digit: string) => void) => () => void;
}

/** What a transfer reports. */
export interface TransferResult extends TransferOutcome {
  /**
   * Warm transfers that bridged: the transferer now owns the caller's leg and media and resolves
   * this when the bridge is over (either party hung up; it has sent any BYE it needed). The call
   * host then records the call `completed` / `transferred` and closes the caller's media.
   * Without it, a `success` means the caller has been handed off (blind: REFER accepted): the call
   * host records `completed` / `transferred` at once, sends BYE if the dialog is still up, and
   * closes the media.
   */
  bridged?: Promise<void>;
  /** The second leg's own call record (modules/calls/dial-legs.ts), when one was opened. */
  callId?: string;
  /** With machine detection, once the leg answered: its verdict. */
  answeredBy?: AnsweredBy;
}

/** What the call host calls for a transfer node (options.mode says blind or warm). */
export type Transferer = (
  ctx: TransferContext,
  destination: string,
  options: TransferOptions,
) => Promise<TransferResult>;

/** What a dial node's second leg is given besides the call: the node's signal and ring timeout. */
export interface DialLegOptions {
  signal: AbortSignal;
  timeoutMs?: number;
  /** Answering-machine detection before the bridge (a machine fails the leg with `machine`). */
  machineDetection?: boolean;
}

/**
 * What the live call calls for a `dial` node: `destination` dialled as a second leg of the call
 * through the trunk of `ctx.call`'s number, with that number as caller ID, and bridged to the
 * caller without an announcement. Its outcomes are a warm transfer's (`bridged` settles when the
 * dialled party's bridge is over; the caller then gets the workflow back).
 */
export type SecondLegDialler = (
  ctx: TransferContext,
  destination: string,
  options: DialLegOptions,
) => Promise<TransferResult>;

/** The outcome without a transferer configured. */
export const TRANSFER_UNAVAILABLE: TransferOutcome = { status: 'failed', reason: 'transfer_unavailable' };
