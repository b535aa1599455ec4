// SDES (RFC 4568) in offer and answer: reading `a=crypto` (what we take and what we pass over),
// answering RTP/SAVP with the first usable attribute, refusing it over a plain transport, our
// RTP/SAVP offer and the answers we accept to it.
import { parse } from 'sdp-transform';
import { describe, expect, it } from 'vitest';
import { answerOffer } from './answer.js';
import { cryptoValuesByMedia, readCrypto, type SdesKey } from './crypto.js';
import { buildOffer, readAnswer } from './offer.js';
import type { LocalAudio, Origin } from './session.js';

const origin: Origin = { sessionId: '1', sessionVersion: 1, address: '203.0.113.5' };
const key30 = Buffer.from(Array.from({ length: 30 }, (_, i) => i));
const key46 = Buffer.from(Array.from({ length: 46 }, (_, i) => 100 + i));
const ours: SdesKey[] = [
  { suite: 'AES_CM_128_HMAC_SHA1_80', key: Buffer.alloc(30, 1) },
  { suite: 'AES_CM_128_HMAC_SHA1_32', key: Buffer.alloc(30, 2) },
  { suite: 'AES_256_CM_HMAC_SHA1_80', key: Buffer.alloc(46, 3) },
];
const plain: LocalAudio = { address: '203.0.113.5', port: 30000, codecs: ['PCMU'] };
const secure: LocalAudio = { ...plain, srtp: { keys: ours } };
const b64 = (b: Buffer) => b.toString('base64');

function offer(crypto: string[], profile = 'RTP/SAVP'): string {
  return [
    'v=0',
    'o=carrier 1 1 IN IP4 198.51.100.7',
    's=-',
    'c=IN IP4 198.51.100.7',
    't=0 0',
    `m=audio 4000 ${profile} 0`,
    ...crypto.map((c) => `a=crypto:${c}`),
    '',
  ].join('\r\n');
}

describe('reading a=crypto', () => {
  it('takes a suite we run with one inline key of its length, a lifetime and a window hint', () => {
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${b64(key30)}`)).toEqual({
      tag: 1,
      suite: 'AES_CM_128_HMAC_SHA1_80',
      key: key30,
    });
    expect(readCrypto(`7 AES_256_CM_HMAC_SHA1_80 inline:${b64(key46)}|2^31 WSH=128`)).toMatchObject({
      tag: 7,
      key: key46,
    });
  });

  it('passes over what it cannot honour, saying why', () => {
    const k = b64(key30);
    expect(readCrypto(`1 F8_128_HMAC_SHA1_80 inline:${k}`)).toEqual({
      unusable: 'crypto suite F8_128_HMAC_SHA1_80',
    });
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${k}|2^20|1:4`)).toEqual({ unusable: 'an MKI' });
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${k};inline:${k}`)).toEqual({
      unusable: 'several master keys',
    });
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${b64(key46)}`)).toEqual({
      unusable: 'a 46-byte key for AES_CM_128_HMAC_SHA1_80',
    });
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${k} KDR=1`)).toEqual({
      unusable: 'session parameter KDR',
    });
    // sdp-transform would keep only the first session parameter; the second must still count.
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${k} WSH=64 UNENCRYPTED_SRTP`)).toEqual({
      unusable: 'session parameter UNENCRYPTED_SRTP',
    });
    expect(readCrypto(`1 AES_CM_128_HMAC_SHA1_80 uri:https://keys.example/1`)).toMatchObject({
      unusable: expect.any(String),
    });
    expect(readCrypto('nonsense')).toEqual({ unusable: 'malformed a=crypto' });
  });

  it('finds the attributes of each m-section', () => {
    const sdp = offer(['1 A inline:x', '2 B inline:y']) + 'm=video 0 RTP/AVP 31\r\na=crypto:9 C inline:z\r\n';
    expect(cryptoValuesByMedia(sdp)).toEqual([['1 A inline:x', '2 B inline:y'], ['9 C inline:z']]);
  });
});

describe('answering RTP/SAVP', () => {
  it('takes the first usable attribute in the offerer’s order and answers with our key', () => {
    const r = answerOffer(
      offer([
        `1 AES_CM_128_HMAC_SHA1_80 inline:${b64(key30)}|2^20|1:4`,
        `2 AES_CM_128_HMAC_SHA1_32 inline:${b64(key30)}`,
      ]),
      secure,
      origin,
    );
    if (!r.ok) throw new Error(r.why);
    const m = parse(r.sdp).media[0];
    expect(m.protocol).toBe('RTP/SAVP');
    expect(r.sdp).toContain(`a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:${b64(ours[1].key)}\r\n`);
    expect(r.sdp.match(/a=crypto/g)).toHaveLength(1);
    expect(r.audio.srtp).toEqual({
      suite: 'AES_CM_128_HMAC_SHA1_32',
      tag: 2,
      localKey: ours[1].key,
      remoteKey: key30,
    });
  });

  it('refuses SRTP keys offered over a plain transport, and offers it cannot key: 488 with the reason', () => {
    expect(answerOffer(offer([`1 AES_CM_128_HMAC_SHA1_80 inline:${b64(key30)}`]), plain, origin)).toEqual({
      ok: false,
      status: 488,
      reason: 'Not Acceptable Here',
      why: 'SRTP keys offered over a plain transport',
    });
    expect(answerOffer(offer([]), secure, origin)).toMatchObject({
      status: 488,
      why: 'RTP/SAVP offered without a=crypto',
    });
    expect(
      answerOffer(
        offer([`1 AEAD_AES_128_GCM inline:${b64(key30)}`, `2 AES_CM_128_HMAC_SHA1_80 inline:abc`]),
        secure,
        origin,
      ),
    ).toMatchObject({
      status: 488,
      why: 'no usable a=crypto (crypto suite AEAD_AES_128_GCM; a 2-byte key for AES_CM_128_HMAC_SHA1_80)',
    });
  });

  it('answers plain RTP/AVP in kind over TLS too, without keys', () => {
    const r = answerOffer(offer([], 'RTP/AVP'), secure, origin);
    if (!r.ok) throw new Error(r.why);
    expect(r.sdp).not.toContain('a=crypto');
    expect(r.audio.srtp).toBeUndefined();
  });
});

describe('offering RTP/SAVP', () => {
  it('offers every suite with its own key, tagged in our order', () => {
    const sdp = buildOffer(secure, origin);
    expect(parse(sdp).media[0].protocol).toBe('RTP/SAVP');
    expect(cryptoValuesByMedia(sdp)[0]).toEqual([
      `1 AES_CM_128_HMAC_SHA1_80 inline:${b64(ours[0].key)}`,
      `2 AES_CM_128_HMAC_SHA1_32 inline:${b64(ours[1].key)}`,
      `3 AES_256_CM_HMAC_SHA1_80 inline:${b64(ours[2].key)}`,
    ]);
    expect(buildOffer(plain, origin)).toContain('RTP/AVP');
  });

  it('reads the answer’s key, and refuses answers that drop or mismatch SRTP', () => {
    const theirs: LocalAudio = {
      ...plain,
      port: 7000,
      srtp: { keys: [{ suite: 'AES_256_CM_HMAC_SHA1_80', key: key46 }] },
    };
    const answered = answerOffer(buildOffer(secure, origin), theirs, origin);
    if (!answered.ok) throw new Error(answered.why);
    const r = readAnswer(answered.sdp, secure);
    expect(r).toMatchObject({
      ok: true,
      audio: { srtp: { suite: 'AES_256_CM_HMAC_SHA1_80', tag: 3, localKey: ours[2].key, remoteKey: key46 } },
    });
    const noCrypto = answered.sdp.replace(/a=crypto.*\r\n/, '');
    expect(readAnswer(noCrypto, secure)).toEqual({ ok: false, why: 'the answer carried no usable a=crypto' });
    expect(readAnswer(noCrypto.replace('RTP/SAVP', 'RTP/AVP'), secure)).toEqual({
      ok: false,
      why: 'the answer refused SRTP',
    });
    expect(readAnswer(answered.sdp.replace('a=crypto:3', 'a=crypto:1'), secure)).toEqual({
      ok: false,
      why: 'the answer’s a=crypto matches none we offered',
    });
    expect(readAnswer(answered.sdp, plain)).toEqual({
      ok: false,
      why: 'the answer asks for SRTP, which we did not offer',
    });
  });
});
