// Builds our SDP offer (RFC 3264 5) and reads the answer to it.
import { parse, write } from 'sdp-transform';
import type { Codec } from './codecs.js';
import { DEFAULT_DYNAMIC_PTS, intersect, knownFormats, ourCodec, reverse } from './codecs.js';
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
    'RTP/AVP',
    offeredFormats(local),
    local.direction ?? 'sendrecv',
    local.ptime ?? 20,
  );
  return write(sessionFrame(origin, [m], local.address));
}

export type AnswerReading =
  { readonly ok: true; readonly audio: NegotiatedAudio } | { readonly ok: false; readonly why: string };

/** Reads the answer to our offer: the formats it kept, which must be ones we offered. */
export function readAnswer(answerSdp: string, local: LocalAudio): AnswerReading {
  const session = parse(answerSdp);
  const m = session.media?.find((x) => x.type === 'audio');
  if (session.version !== 0 || !m) return { ok: false, why: 'no audio stream in the answer' };
  if (m.port === 0) return { ok: false, why: 'the audio stream was rejected' };
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
  return { ok: true, audio: te ? { ...audio, telephoneEvent: te } : audio };
}
