// A TelephonyNode (call host, admission, LiveCall, as `serve` runs it) on a TestApi's wiring (its
// store, FakeClock and session host), with its SIP transports played by the test (fake-wire.ts):
// INVITEs arrive from any source the test names and every response and request we send is
// captured. Phone channels are instant (prompts "played" at once, no audio), so a workflow runs to
// its end without time passing; what is under test is the SIP and call-record side.
import type { CallControl } from '../../src/channels/call-media.js';
import { DRAIN_LIMIT_MS } from '../../src/telephony/calls/node/call-drain.js';
import type { OverloadLimits } from '../../src/telephony/sip/overload.js';
import { TelephonyNode } from '../../src/telephony/calls/node/telephony-node.js';
import type { PhoneChannelLike } from '../../src/telephony/calls/live/live-call.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { createReply } from '../../src/telephony/sip/message/build.js';
import type { SipRequest, SipResponse } from '../../src/telephony/sip/message/types.js';
import { FakeWire, type WiredStack } from './fake-wire.js';
import type { Source } from '../../src/telephony/sip/transport/routing.js';
import type { TestApi } from './api.js';
import type { CallWorld } from './calls.js';

/** A phone channel that says everything at once and hangs up through the call's control. */
function instantChannel(control: CallControl): PhoneChannelLike {
  return {
    kind: 'phone',
    capabilities: { dtmf: true, telephony: true, simulated: false },
    say: async () => ({ bargedIn: false }),
    listen: async () => null,
    nextDigit: async () => null,
    clearDigits: () => undefined,
    transfer: async () => ({ status: 'failed', reason: 'transfer_unavailable' }),
    dial: async () => ({ status: 'failed' }),
    hangup: () => control.hangup(),
    usage: () => ({ ttsCharacters: 0, sttSeconds: 0 }),
    close: () => undefined,
  };
}

export interface WiredNode {
  node: TelephonyNode;
  wire: WiredStack;
  close(): Promise<void>;
}

let rtpBase = 41000 + (process.pid % 40) * 100;

export async function wiredNode(t: TestApi, o: { admission?: OverloadLimits } = {}): Promise<WiredNode> {
  const min = rtpBase;
  rtpBase += 40;
  const node = await TelephonyNode.start({
    deps: t.deps,
    sessions: t.wiring.sessionHost,
    tts: t.wiring.providers.tts,
    port: 0,
    // Fixed and generous: a loaded test machine must not make the derived limits refuse calls.
    admission: o.admission ?? { maxConcurrentCalls: 10_000, maxCallsPerSecond: 10_000 },
    ports: new RtpPortAllocator(min, min + 39),
    stt: null,
    newChannel: ({ control }) => instantChannel(control),
  });
  return {
    node,
    wire: new FakeWire().attach(node.stack, t.deps.config.sip.host, 5060),
    async close() {
      // A call a failing test left up would hold the drain forever on the FakeClock: let the drain
      // limit pass at once, so whatever is still up is hung up (shutdown) and the store swept.
      const closing = node.close();
      t.clock.advance(DRAIN_LIMIT_MS);
      await closing;
    },
  };
}

const CRLF = '\r\n';

export interface CarrierInvite {
  /** The top Via as the carrier wrote it, e.g. `SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1`. */
  via: string;
  callId: string;
  /** SDP offer; omitted: a late offer (no body). */
  sdp?: string;
  caller?: string;
}

/** An INVITE for the world's number from a carrier. */
export function carrierInvite(w: CallWorld, o: CarrierInvite): string {
  const body = o.sdp ?? '';
  return [
    `INVITE sip:${w.number}@${w.host} SIP/2.0`,
    `Via: ${o.via}`,
    'Max-Forwards: 70',
    `To: <sip:${w.number}@${w.host}>`,
    `From: <sip:${o.caller ?? '+4930123456'}@carrier.example.test>;tag=carrier1`,
    `Call-ID: ${o.callId}`,
    'CSeq: 1 INVITE',
    'Contact: <sip:carrier@203.0.113.10:5060>',
    ...(body ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join(CRLF);
}

/** An in-dialog request of the carrier's (ACK, BYE) for the dialog our 2xx `ok` opened. */
export function carrierInDialog(
  ok: SipResponse,
  method: 'ACK' | 'BYE',
  o: { branch: string; cseq: number; sdp?: string },
): string {
  const body = o.sdp ?? '';
  const to = ok.headers.find((h) => h.name === 'To')!.value;
  const from = ok.headers.find((h) => h.name === 'From')!.value;
  return [
    `${method} sip:switchboard@192.0.2.1 SIP/2.0`,
    `Via: SIP/2.0/UDP 203.0.113.10:5060;branch=${o.branch}`,
    'Max-Forwards: 70',
    `To: ${to}`,
    `From: ${from}`,
    `Call-ID: ${ok.callId}`,
    `CSeq: ${o.cseq} ${method}`,
    ...(body ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join(CRLF);
}

/** Answers our BYE (the last one sent) with 200, as the carrier would. */
export function answerBye(wire: WiredStack, from: Source): SipRequest {
  const bye = wire.requests('BYE').at(-1)!.message;
  wire.deliver(createReply(bye, 200, 'OK'), from);
  return bye;
}

/** A one-stream SDP offer or answer from the carrier. */
export function carrierSdp(port: number, formats: string): string {
  const rtpmap: Record<string, string> = {
    '0': 'PCMU/8000',
    '8': 'PCMA/8000',
    '18': 'G729/8000',
    '101': 'telephone-event/8000',
  };
  const pts = formats.split(' ');
  return [
    'v=0',
    'o=carrier 1 1 IN IP4 127.0.0.1',
    's=-',
    'c=IN IP4 127.0.0.1',
    't=0 0',
    `m=audio ${port} RTP/AVP ${formats}`,
    ...pts.filter((p) => rtpmap[p]).map((p) => `a=rtpmap:${p} ${rtpmap[p]}`),
    'a=sendrecv',
    '',
  ].join(CRLF);
}
