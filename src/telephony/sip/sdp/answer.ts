// Answers a remote SDP offer (RFC 3264 6): one m-line per offered m-line, in order; the first
// audio stream we can carry is accepted with every format both sides support (the offerer's
// payload type numbers kept), the rest are refused with port 0; nothing usable means 488.
//
// An RTP/SAVP (or SAVPF) stream is answered in kind when our side has SRTP keys (the call's
// signalling is TLS) and the offer carries an `a=crypto` we can use: the first usable one in the
// offerer's order, answered with its tag and our key for that suite. Without keys (a plain
// transport, where the offerer's keys travelled in the clear) the stream is refused, and with it
// the offer when nothing else is usable: 488, saying why.
import { parse, write } from 'sdp-transform';
import type { MediaDescription, SessionDescription } from 'sdp-transform';
import type { Codec } from './codecs.js';
import { OPUS_FMTP, TELEPHONE_EVENT_FMTP, intersect, knownFormats, payloadList, reverse } from './codecs.js';
import type { NegotiatedSrtp } from './crypto.js';
import { SECURE_PROFILES, cryptoAttribute, cryptoValuesByMedia, readCrypto } from './crypto.js';
import type { LocalAudio, NegotiatedAudio, Origin } from './session.js';
import { audioLine, connectionOf, remoteDirection, sessionFrame } from './session.js';

export type AnswerResult =
  | { readonly ok: true; readonly sdp: string; readonly audio: NegotiatedAudio }
  | { readonly ok: false; readonly status: 400 | 488; readonly reason: string; readonly why: string };

const RTP_PROFILES = ['RTP/AVP', 'RTP/AVPF'];

function refused(m: MediaDescription): MediaDescription {
  // A refused stream keeps its formats; only the port says no (RFC 3264 6).
  const payloads = payloadList(m).join(' ') || '0';
  return { type: m.type, port: 0, protocol: m.protocol, payloads, rtp: [], fmtp: [] };
}

/** An offer read once, to be answered more than once (the inbound call probes it, then answers). */
export interface ReadOffer {
  readonly session: SessionDescription;
  /** The `a=crypto` values of each m-line, by index. */
  readonly crypto: string[][];
}

/** Reads an offer's text (sdp-transform's parse: the costly part of an answer). */
export function readOffer(offerSdp: string): ReadOffer {
  return { session: parse(offerSdp), crypto: cryptoValuesByMedia(offerSdp) };
}

/** Answers an offer, its text or as readOffer read it (never changed: it may be answered again). */
export function answerOffer(offer: string | ReadOffer, local: LocalAudio, origin: Origin): AnswerResult {
  const { session, crypto } = typeof offer === 'string' ? readOffer(offer) : offer;
  if (session.version !== 0 || !session.origin || !session.media || session.media.length === 0) {
    return { ok: false, status: 400, reason: 'Bad Request', why: 'malformed SDP offer' };
  }
  const lines: MediaDescription[] = [];
  let audio: NegotiatedAudio | undefined;
  let why = 'no audio stream offered';
  for (const [index, m] of session.media.entries()) {
    const address = connectionOf(session, m);
    const secure = SECURE_PROFILES.includes(m.protocol);
    if (
      audio ||
      m.type !== 'audio' ||
      m.port === 0 ||
      !(secure || RTP_PROFILES.includes(m.protocol)) ||
      !address
    ) {
      if (!audio && m.type === 'audio')
        why = m.port === 0 ? 'audio stream disabled' : `cannot carry ${m.protocol}`;
      lines.push(refused(m));
      continue;
    }
    let srtp: NegotiatedSrtp | undefined;
    if (secure) {
      const chosen = chooseCrypto(crypto[index] ?? [], local);
      if (typeof chosen === 'string') {
        why = chosen;
        lines.push(refused(m));
        continue;
      }
      srtp = chosen;
    }
    const offered = knownFormats(m);
    let codecs: Codec[] = [];
    for (const name of local.codecs) {
      const f = offered.find((o) => o.name === name);
      if (f) codecs.push(name === 'opus' ? { ...f, fmtp: OPUS_FMTP } : f);
    }
    if (local.singleCodec) codecs = codecs.slice(0, 1);
    if (codecs.length === 0) {
      why = 'no common audio format';
      lines.push(refused(m));
      continue;
    }
    const rates = new Set(codecs.map((c) => c.clockRate));
    const events =
      local.telephoneEvent === false
        ? []
        : offered
            .filter((o) => o.name === 'telephone-event' && rates.has(o.clockRate))
            .filter((o, i, all) => all.findIndex((x) => x.clockRate === o.clockRate) === i)
            .map((o) => ({ ...o, fmtp: o.fmtp ?? TELEPHONE_EVENT_FMTP }));
    const theirs = remoteDirection(session, m);
    const direction = intersect(reverse(theirs), local.direction ?? 'sendrecv');
    const ptime = local.ptime ?? 20;
    const line = audioLine(local.port, m.protocol, [...codecs, ...events], direction, ptime);
    if (srtp) line.crypto = [cryptoAttribute(srtp.tag, { suite: srtp.suite, key: srtp.localKey })];
    lines.push(line);
    const te = events.find((e) => e.clockRate === codecs[0].clockRate);
    const negotiated: NegotiatedAudio = {
      remoteAddress: address,
      remotePort: m.port,
      codecs,
      codec: codecs[0],
      direction,
      remoteHold: theirs === 'sendonly' || theirs === 'inactive',
      ptime: m.ptime ?? ptime,
    };
    audio = { ...negotiated, ...(te ? { telephoneEvent: te } : {}), ...(srtp ? { srtp } : {}) };
  }
  if (!audio) return { ok: false, status: 488, reason: 'Not Acceptable Here', why };
  return { ok: true, sdp: write(sessionFrame(origin, lines, local.address)), audio };
}

/** The offered `a=crypto` we answer (the first we can use), or why none will do. */
function chooseCrypto(values: readonly string[], local: LocalAudio): NegotiatedSrtp | string {
  if (!local.srtp) return 'SRTP keys offered over a plain transport';
  if (values.length === 0) return 'RTP/SAVP offered without a=crypto';
  const reasons: string[] = [];
  for (const value of values) {
    const offered = readCrypto(value);
    if ('unusable' in offered) {
      reasons.push(offered.unusable);
      continue;
    }
    const ours = local.srtp.keys.find((k) => k.suite === offered.suite);
    if (!ours) {
      reasons.push(`crypto suite ${offered.suite}`);
      continue;
    }
    return { suite: offered.suite, tag: offered.tag, localKey: ours.key, remoteKey: offered.key };
  }
  return `no usable a=crypto (${reasons.join('; ')})`;
}
