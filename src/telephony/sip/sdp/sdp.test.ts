// SDP offer/answer: format matching with the offerer's payload types, preference order, hold and
// resume in both styles, refused streams and 488.
import { parse } from 'sdp-transform';
import { describe, expect, it } from 'vitest';
import { answerOffer } from './answer.js';
import { buildOffer, readAnswer } from './offer.js';
import type { LocalAudio, Origin } from './session.js';

const origin: Origin = { sessionId: '4242', sessionVersion: 1, address: '203.0.113.5' };
const local: LocalAudio = { address: '203.0.113.5', port: 30000, codecs: ['opus', 'PCMA', 'PCMU'] };

function offer(
  audio: string[],
  extra: { session?: string[]; video?: boolean; connection?: string } = {},
): string {
  return [
    'v=0',
    'o=carrier 1 1 IN IP4 198.51.100.7',
    's=-',
    `c=IN IP4 ${extra.connection ?? '198.51.100.7'}`,
    't=0 0',
    ...(extra.session ?? []),
    ...(extra.video ? ['m=video 5000 RTP/AVP 31', 'a=rtpmap:31 H261/90000'] : []),
    ...audio,
    '',
  ].join('\r\n');
}

const full = [
  'm=audio 4000 RTP/AVP 96 8 0 97 101',
  'a=rtpmap:96 opus/48000/2',
  'a=fmtp:96 useinbandfec=1',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:97 telephone-event/48000',
  'a=rtpmap:101 telephone-event/8000',
  'a=fmtp:101 0-15',
  'a=ptime:30',
];

function answerLine(sdp: string) {
  return parse(sdp).media[0];
}

describe('answering', () => {
  it('keeps every common format, in our order, with the offerer’s payload types', () => {
    const r = answerOffer(offer(full), local, origin);
    if (!r.ok) throw new Error(r.why);
    const m = answerLine(r.sdp);
    expect(m.payloads).toBe('96 8 0 97 101');
    expect(m.rtp).toEqual([
      { payload: 96, codec: 'opus', rate: 48000, encoding: 2 },
      { payload: 8, codec: 'PCMA', rate: 8000 },
      { payload: 0, codec: 'PCMU', rate: 8000 },
      { payload: 97, codec: 'telephone-event', rate: 48000 },
      { payload: 101, codec: 'telephone-event', rate: 8000 },
    ]);
    expect(m.fmtp).toContainEqual({ payload: 101, config: '0-15' });
    expect(m.port).toBe(30000);
    expect(m.direction).toBe('sendrecv');
    expect(parse(r.sdp).connection).toEqual({ version: 4, ip: '203.0.113.5' });
    expect(r.audio).toMatchObject({
      remoteAddress: '198.51.100.7',
      remotePort: 4000,
      codec: { name: 'opus', pt: 96, clockRate: 48000, channels: 2 },
      telephoneEvent: { pt: 97, clockRate: 48000 },
      direction: 'sendrecv',
      remoteHold: false,
      ptime: 30,
    });
  });

  it('follows our preference order, and picks events at the chosen codec’s rate', () => {
    const r = answerOffer(offer(full), { ...local, codecs: ['PCMU', 'opus'] }, origin);
    if (!r.ok) throw new Error(r.why);
    expect(answerLine(r.sdp).payloads).toBe('0 96 97 101');
    expect(r.audio.codec).toMatchObject({ name: 'PCMU', pt: 0 });
    expect(r.audio.telephoneEvent).toMatchObject({ pt: 101, clockRate: 8000 });
  });

  it('answers with a single codec when asked, and without events when they are off', () => {
    const r = answerOffer(
      offer(full),
      { ...local, codecs: ['PCMA', 'PCMU'], singleCodec: true, telephoneEvent: false },
      origin,
    );
    if (!r.ok) throw new Error(r.why);
    expect(String(answerLine(r.sdp).payloads)).toBe('8');
    expect(r.audio.telephoneEvent).toBeUndefined();
  });

  it('accepts static types without rtpmap and ignores dynamic ones without it', () => {
    const r = answerOffer(offer(['m=audio 4000 RTP/AVP 0 96']), local, origin);
    if (!r.ok) throw new Error(r.why);
    expect(String(answerLine(r.sdp).payloads)).toBe('0');
  });

  it('says 488 when nothing matches', () => {
    const r = answerOffer(offer(['m=audio 4000 RTP/AVP 18', 'a=rtpmap:18 G729/8000']), local, origin);
    expect(r).toMatchObject({
      ok: false,
      status: 488,
      reason: 'Not Acceptable Here',
      why: 'no common audio format',
    });
    expect(answerOffer(offer(['m=audio 4000 RTP/SAVP 0']), local, origin)).toMatchObject({ status: 488 });
    expect(
      answerOffer(offer(['m=audio 4000 RTP/AVP 96', 'a=rtpmap:96 opus/48000/1']), local, origin),
    ).toMatchObject({
      status: 488,
    });
    expect(answerOffer(offer(['m=audio 0 RTP/AVP 0']), local, origin)).toMatchObject({ status: 488 });
    expect(answerOffer('not sdp', local, origin)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses other streams with port 0, one m-line per offered line, in order', () => {
    const r = answerOffer(
      offer(['m=audio 4000 RTP/AVP 0', 'm=audio 4002 RTP/AVP 8'], { video: true }),
      local,
      origin,
    );
    if (!r.ok) throw new Error(r.why);
    const media = parse(r.sdp).media;
    expect(media.map((m) => [m.type, m.port, String(m.payloads)])).toEqual([
      ['video', 0, '31'],
      ['audio', 30000, '0'],
      ['audio', 0, '8'],
    ]);
  });
});

describe('hold and resume', () => {
  const pcmu = ['m=audio 4000 RTP/AVP 0'];
  const dir = (audio: string[], extra = {}, l: LocalAudio = local) => {
    const r = answerOffer(offer(audio, extra), l, origin);
    if (!r.ok) throw new Error(r.why);
    return { sent: answerLine(r.sdp).direction, audio: r.audio };
  };

  it('mirrors sendonly, recvonly and inactive', () => {
    expect(dir([...pcmu, 'a=sendonly'])).toMatchObject({ sent: 'recvonly', audio: { remoteHold: true } });
    expect(dir([...pcmu, 'a=inactive'])).toMatchObject({ sent: 'inactive', audio: { remoteHold: true } });
    expect(dir([...pcmu, 'a=recvonly'])).toMatchObject({ sent: 'sendonly', audio: { remoteHold: false } });
    expect(dir(pcmu, { session: ['a=sendonly'] })).toMatchObject({ sent: 'recvonly' });
  });

  it('reads old-style c=0.0.0.0 hold as sendonly', () => {
    expect(dir(pcmu, { connection: '0.0.0.0' })).toMatchObject({
      sent: 'recvonly',
      audio: { remoteHold: true, remoteAddress: '0.0.0.0' },
    });
    expect(dir([...pcmu, 'a=recvonly'], { connection: '0.0.0.0' })).toMatchObject({ sent: 'inactive' });
  });

  it('holds the other side from our end and resumes', () => {
    expect(dir(pcmu, {}, { ...local, direction: 'sendonly' })).toMatchObject({ sent: 'sendonly' });
    expect(dir([...pcmu, 'a=sendonly'], {}, { ...local, direction: 'sendonly' })).toMatchObject({
      sent: 'inactive',
    });
    expect(dir([...pcmu, 'a=sendrecv'])).toMatchObject({ sent: 'sendrecv', audio: { remoteHold: false } });
  });
});

describe('offering', () => {
  it('offers our formats in order with events at each clock rate', () => {
    const sdp = buildOffer(local, origin);
    const s = parse(sdp);
    expect(s.origin).toMatchObject({ sessionId: 4242, sessionVersion: 1, address: '203.0.113.5' });
    const m = s.media[0];
    expect(m.payloads).toBe('111 8 0 110 101');
    expect(
      m.rtp.map((r) => `${r.payload} ${r.codec}/${r.rate}${r.encoding ? '/' + r.encoding : ''}`),
    ).toEqual([
      '111 opus/48000/2',
      '8 PCMA/8000',
      '0 PCMU/8000',
      '110 telephone-event/48000',
      '101 telephone-event/8000',
    ]);
    expect(m.fmtp).toEqual([
      { payload: 111, config: 'minptime=10;useinbandfec=1' },
      { payload: 110, config: '0-16' },
      { payload: 101, config: '0-16' },
    ]);
    expect(m.direction).toBe('sendrecv');
    expect(buildOffer({ ...local, direction: 'sendonly' }, origin)).toContain('a=sendonly');
  });

  it('reads the answer to our offer', () => {
    const remote: LocalAudio = { address: '198.51.100.9', port: 7000, codecs: ['PCMU', 'PCMA'] };
    const answered = answerOffer(buildOffer(local, origin), remote, { ...origin, address: '198.51.100.9' });
    if (!answered.ok) throw new Error(answered.why);
    const r = readAnswer(answered.sdp, local);
    expect(r).toEqual({
      ok: true,
      audio: {
        remoteAddress: '198.51.100.9',
        remotePort: 7000,
        codecs: [
          { name: 'PCMU', pt: 0, clockRate: 8000, channels: 1 },
          { name: 'PCMA', pt: 8, clockRate: 8000, channels: 1 },
        ],
        codec: { name: 'PCMU', pt: 0, clockRate: 8000, channels: 1 },
        telephoneEvent: { name: 'telephone-event', pt: 101, clockRate: 8000, channels: 1, fmtp: '0-16' },
        direction: 'sendrecv',
        remoteHold: false,
        ptime: 20,
      },
    });
    expect(readAnswer(answered.sdp.replace('m=audio 7000', 'm=audio 0'), local)).toMatchObject({ ok: false });
  });
});
