// The far end's in-dialog requests on a second leg we dialled and bridge to the caller (a warm
// transfer's human, a dial node's party; transfer-warm.ts): INFO digits cross to the caller once
// bridged; re-INVITE and UPDATE (session-timer refreshes, hold, a new address or codec) are
// answered from our side of the SDP and restart the leg's session timer; a REFER goes to whoever
// takes it once bridged (the hand-on, transfer-handon.ts), and is declined otherwise.
import type { RtpSession } from '../../media/rtp-session.js';
import { createCodec } from '../../../audio/codecs/registry.js';
import type { InDialogHandler, Respond } from '../../sip/dialog-requests.js';
import { parseInfoDtmf } from '../../sip/extensions/info-dtmf.js';
import { decideUasTimer } from '../../sip/extensions/session-timer.js';
import { getHeader } from '../../sip/message/access.js';
import type { HeaderInit } from '../../sip/message/build.js';
import type { SipRequest } from '../../sip/message/types.js';
import { answerOffer } from '../../sip/sdp/answer.js';
import { buildOffer } from '../../sip/sdp/offer.js';
import type { LocalAudio, Origin } from '../../sip/sdp/session.js';
import { timerOfTheirRequest, type DialogTimer } from '../live/session-refresh.js';
import { declineRefer } from './transfer-handon.js';

export interface SecondLegOptions {
  rtp: RtpSession;
  /** Our side of the SDP (address, port, the codecs we offered). */
  local: LocalAudio;
  origin: Origin;
  /** Our Contact on this leg, for 2xx answers to re-INVITE and UPDATE. */
  contact: string;
  timer: DialogTimer;
  /** Our SIP host, the warn-agent of a declined REFER's Warning. */
  host: string;
}

export class SecondLegRequests {
  /** Where the party's INFO digits go; set while bridged. */
  toCaller: ((digit: string) => void) | null = null;
  /** Takes the party's REFER (and answers it); while unset a REFER is declined. */
  onRefer: ((req: SipRequest, respond: Respond) => void) | null = null;
  /** The format the leg's RtpSession sends now (its answer, or a later re-INVITE, may change it). */
  codec: { name: string; pt: number };
  private version: number;

  constructor(
    private readonly o: SecondLegOptions,
    codec: { name: string; pt: number },
  ) {
    this.codec = codec;
    this.version = o.origin.sessionVersion;
  }

  readonly handle: InDialogHandler = (req, respond) => {
    if (req.method === 'INFO') {
      const press = parseInfoDtmf(getHeader(req, 'Content-Type'), req.body);
      respond(200, 'OK');
      if (press) this.toCaller?.(press.digit);
      return true;
    }
    if (req.method === 'REFER') {
      if (this.onRefer) this.onRefer(req, respond);
      else declineRefer(respond, this.o.host, 'the caller is not connected to this leg yet');
      return true;
    }
    if (req.method !== 'INVITE' && req.method !== 'UPDATE') return false;
    this.offer(req, respond);
    return true;
  };

  private offer(req: SipRequest, respond: Respond): void {
    const { rtp, local, origin, timer } = this.o;
    const decided = decideUasTimer(req);
    if (!decided.ok) return respond(decided.status, decided.reason, [...decided.headers]);
    timer.arm(timerOfTheirRequest(decided.timer) ?? timer.state);
    const headers: HeaderInit[] = [['Contact', this.o.contact], ...decided.headers];
    const sdpHeaders: HeaderInit[] = [...headers, ['Content-Type', 'application/sdp']];
    if (req.body.length === 0) {
      if (req.method === 'UPDATE') return respond(200, 'OK', headers);
      return respond(200, 'OK', sdpHeaders, buildOffer(local, { ...origin, sessionVersion: ++this.version }));
    }
    const result = answerOffer(new TextDecoder().decode(req.body), local, {
      ...origin,
      sessionVersion: ++this.version,
    });
    const codec = result.ok ? createCodec(result.audio.codec.name, result.audio.codec.pt) : null;
    if (!result.ok) return respond(result.status, result.reason);
    if (!codec) return respond(488, 'Not Acceptable Here');
    rtp.setRemote({ address: result.audio.remoteAddress, port: result.audio.remotePort });
    rtp.setSrtp(result.audio.srtp ?? null);
    rtp.setDirection(result.audio.direction);
    if (result.audio.codec.name !== this.codec.name || result.audio.codec.pt !== this.codec.pt) {
      rtp.setCodec(codec, result.audio.codec.pt);
      this.codec = { name: result.audio.codec.name, pt: result.audio.codec.pt };
    }
    respond(200, 'OK', sdpHeaders, result.sdp);
  }
}
