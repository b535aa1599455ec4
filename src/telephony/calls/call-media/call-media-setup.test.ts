// applyAudio: what an answer (an outbound call's 2xx, a late offer's ACK, a re-INVITE) negotiated
// reaches the running RTP session: address, direction, codec, and the telephone-event type at the
// chosen codec's rate, and the SRTP keys (none for plain RTP).
import { describe, expect, it } from 'vitest';
import type { RtpSession } from '../../media/rtp-session.js';
import type { NegotiatedAudio } from '../../sip/sdp/session.js';
import { applyAudio, sdesKeys } from './call-media-setup.js';

function recorder() {
  const calls: string[] = [];
  const rtp = {
    setRemote: (r: { address: string; port: number }) => calls.push(`remote ${r.address}:${r.port}`),
    setSrtp: (p: { suite: string } | null) => calls.push(`srtp ${p ? p.suite : 'none'}`),
    setDirection: (d: string) => calls.push(`direction ${d}`),
    setCodec: (c: { name: string }, pt: number) => calls.push(`codec ${c.name} ${pt}`),
    setTelephoneEventPayloadType: (pt: number) => calls.push(`events ${pt}`),
  };
  return { calls, rtp: rtp as unknown as RtpSession };
}

const opus = { name: 'opus', pt: 111, clockRate: 48000, channels: 2 } as const;
const pcmu = { name: 'PCMU', pt: 0, clockRate: 8000, channels: 1 } as const;

function audio(over: Partial<NegotiatedAudio>): NegotiatedAudio {
  return {
    remoteAddress: '192.0.2.10',
    remotePort: 40000,
    codecs: [pcmu],
    codec: pcmu,
    direction: 'sendrecv',
    remoteHold: false,
    ptime: 20,
    ...over,
  };
}

describe('applyAudio', () => {
  it('switches to Opus with the 48 kHz telephone-event type the answer named', () => {
    const { calls, rtp } = recorder();
    const te48 = { name: 'telephone-event', pt: 110, clockRate: 48000, channels: 1 } as const;
    applyAudio(rtp, audio({ codecs: [opus], codec: opus, telephoneEvent: te48 }), { name: 'PCMU', pt: 0 });
    expect(calls).toEqual([
      'remote 192.0.2.10:40000',
      'srtp none',
      'direction sendrecv',
      'codec opus 111',
      'events 110',
    ]);
  });

  it('keeps the codec it has, and the event type when the far end does no RFC 4733', () => {
    const { calls, rtp } = recorder();
    applyAudio(rtp, audio({ direction: 'recvonly' }), { name: 'PCMU', pt: 0 });
    expect(calls).toEqual(['remote 192.0.2.10:40000', 'srtp none', 'direction recvonly']);
  });

  it('keys SRTP with what SDES settled', () => {
    const { calls, rtp } = recorder();
    const srtp = {
      suite: 'AES_CM_128_HMAC_SHA1_80',
      tag: 1,
      localKey: Buffer.alloc(30, 1),
      remoteKey: Buffer.alloc(30, 2),
    } as const;
    applyAudio(rtp, audio({ srtp }), { name: 'PCMU', pt: 0 });
    expect(calls).toEqual(['remote 192.0.2.10:40000', 'srtp AES_CM_128_HMAC_SHA1_80', 'direction sendrecv']);
  });
});

describe('sdesKeys', () => {
  it('gives a leg one fresh key per suite, in our order', () => {
    const keys = sdesKeys();
    expect(keys.map((k) => [k.suite, k.key.length])).toEqual([
      ['AES_CM_128_HMAC_SHA1_80', 30],
      ['AES_CM_128_HMAC_SHA1_32', 30],
      ['AES_256_CM_HMAC_SHA1_80', 46],
    ]);
    expect(sdesKeys()[0].key).not.toEqual(keys[0].key);
  });
});
