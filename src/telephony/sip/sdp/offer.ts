// Builds our SDP offer (RFC 3264 5) and reads the answer to it. With SRTP keys (LocalAudio.srtp)
// the offer is RTP/SAVP with one `a=crypto` per suite (tags 1, 2, … in our order), and the answer
// must take one of them, by tag and suite, with its own key: SRTP is then mandatory, so an answer
// without a usable key is no answer.
import { parse, write } from 'sdp-transform';
import type { Codec } from './codecs.js';
import { DEFAULT_DYNAMIC_PTS, intersect, knownFormats, ourCodec, reverse } from './codecs.js';
import type { NegotiatedSrtp, OfferedCrypto } from './crypto.js';
import { SECURE_PROFILES, cryptoAttribute, cryptoValuesByMedia, readCrypto } from './crypto.js';
import type { LocalAudio, NegotiatedAudio, Origin } from './session.js';
import { audioLine, connectionOf, remoteDirection, sessionFrame } from './session.js';

/** The formats we offer, in preference order, events last at each clock rate we offer. */
export function offeredFormats(local: LocalAudio): Codec[] {
  const pts = local.dynamicPayloadTypes ?? DEFAULT_DYNAMIC_PTS;
  const audio = local.codecs.map((c) => ourCodec(c, pts));
  if (local.telephoneEvent === false) return audio;
  const rates = [...new Set(audio.map((c) => c.clockRate))];
  return [...audio, ...rates.map((r) => ourCodec('telephone-event', pts, r))];
}

export function buildOffer(local: LocalAudio, origin: Origin): string {
  const m = audioLine(
    local.port,
    local.srtp ? 'RTP/SAVP' : 'RTP/AVP',
    offeredFormats(local),
    local.direction ?? 'sendrecv',
    local.ptime ?? 20,
  );
  if (local.srtp) m.crypto = local.srtp.keys.map((k, i) => cryptoAttribute(i + 1, k));
  return write(sessionFrame(origin, [m], local.address));
}

export type AnswerReading =
  { readonly ok: true; readonly audio: NegotiatedAudio } | { readonly ok: false; readonly why: string };

/** Reads the answer to our offer: the formats it kept, which must be ones we offered. */
export function readAnswer(answerSdp: string, local: LocalAudio): AnswerReading {
  const session = parse(answerSdp);
  const at = session.media?.findIndex((x) => x.type === 'audio') ?? -1;
  const m = at >= 0 ? session.media[at] : undefined;
  if (session.version !== 0 || !m) return { ok: false, why: 'no audio stream in the answer' };
  if (m.port === 0) return { ok: false, why: 'the audio stream was rejected' };
  const srtp = answeredCrypto(
    SECURE_PROFILES.includes(m.protocol),
    cryptoValuesByMedia(answerSdp)[at] ?? [],
    local,
  );
  if (typeof srtp === 'string') return { ok: false, why: srtp };
  const offered = offeredFormats(local);
  const formats = knownFormats(m).filter((f) =>
    offered.some((o) => o.name === f.name && o.pt === f.pt && o.clockRate === f.clockRate),
  );
  const codecs = formats.filter((f) => f.name !== 'telephone-event');
  if (codecs.length === 0) return { ok: false, why: 'the answer kept no format we offered' };
  const address = connectionOf(session, m);
  if (address === undefined) return { ok: false, why: 'no connection address' };
  const theirs = remoteDirection(session, m);
  const te = formats.find((f) => f.name === 'telephone-event' && f.clockRate === codecs[0].clockRate);
  const audio: NegotiatedAudio = {
    remoteAddress: address,
    remotePort: m.port,
    codecs,
    codec: codecs[0],
    direction: intersect(reverse(theirs), local.direction ?? 'sendrecv'),
    remoteHold: theirs === 'sendonly' || theirs === 'inactive',
    ptime: m.ptime ?? local.ptime ?? 20,
  };
  return { ok: true, audio: { ...audio, ...(te ? { telephoneEvent: te } : {}), ...(srtp ? { srtp } : {}) } };
}

/** The key the answer took for our SRTP offer (undefined for plain RTP), or why it will not do. */
function answeredCrypto(
  secure: boolean,
  values: readonly string[],
  local: LocalAudio,
): NegotiatedSrtp | undefined | string {
  if (!local.srtp) return secure ? 'the answer asks for SRTP, which we did not offer' : undefined;
  if (!secure) return 'the answer refused SRTP';
  const usable = values.map(readCrypto).filter((r): r is OfferedCrypto => !('unusable' in r));
  if (usable.length !== 1) return 'the answer carried no usable a=crypto';
  const taken = usable[0];
  const ours = local.srtp.keys[taken.tag - 1];
  if (!ours || ours.suite !== taken.suite) return 'the answer’s a=crypto matches none we offered';
  return { suite: taken.suite, tag: taken.tag, localKey: ours.key, remoteKey: taken.key };
}
