// The call controller's surface for main.ts and the SIP side: the TelephonyNode and its call host,
// inbound admission, call progress, the outbound state machine and its SipLeg seam, the Dialer,
// live calls and their media, transfers' context, shutdown drain and restart recovery.
export { admitInbound, sipLabelOf } from './inbound-admission.js';
export { inboundInviteOf } from './invite-fields.js';
export type { Admission, AdmissionDeps, AdmissionStatus, InboundInvite } from './inbound-admission.js';
export { CallProgress, answerCall, endingOf, finishCall, SESSION_END_REASON } from './call-progress.js';
export type { EndedBy, ProgressDeps } from './call-progress.js';
export { outboundOutcome } from './outbound-outcome.js';
export type { OutboundEvent, OutboundOutcome } from './outbound-outcome.js';
export { OutboundCall } from './outbound-call.js';
export type { OutboundCallOptions, OutboundDeps } from './outbound-call.js';
export { SipDialer } from './sip-dialer.js';
export type { SipDialerHooks } from './sip-dialer.js';
export { trunkTarget } from './sip-leg.js';
export type {
  DigestCredentials,
  InviteOptions,
  SipLeg,
  SipLegEvents,
  SipLegFactory,
  SipTarget,
  SipTransport,
} from './sip-leg.js';
export { CallDrain, DRAIN_LIMIT_MS } from './call-drain.js';
export type { DrainHooks } from './call-drain.js';
export { closeStaleCalls, sweptStatus } from './recover-calls.js';
export type { SweepReason } from './recover-calls.js';
export { e164FromSipUser } from './phone-session.js';
export type { RunnableCall } from './phone-session.js';
export { TelephonyNode, configuredStt } from './telephony-node.js';
export type { TelephonyNodeOptions } from './telephony-node.js';
export { CallHost } from './call-host.js';
export type { CallHostOptions } from './call-host.js';
export { LiveCall } from './live-call.js';
export type { CallHostDeps, PhoneChannelFactory, PhoneChannelLike } from './live-call.js';
export { RtpCallMedia } from './rtp-call-media.js';
export { MediaSipLeg } from './media-sip-leg.js';
export { CODEC_PREFERENCE, advertisedAddress } from './call-media-setup.js';
export { TRANSFER_UNAVAILABLE } from './transfer-context.js';
export type { TransferContext, Transferer, TransferResult } from './transfer-context.js';
