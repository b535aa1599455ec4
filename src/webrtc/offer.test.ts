// Which offers the service answers, in which codec, and what the peer connection is handed.
import { describe, expect, it } from 'vitest';
import { parseOffer } from './offer.js';

/** A Chromium-shaped offer: audio (Opus, PCMU, PCMA, telephone-event) and a data channel. */
function offer(payloads = '111 0 8 126', extra = ''): string {
  return [
    'v=0',
    'o=- 4611 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0 1',
    'a=fingerprint:sha-256 AB:CD',
    `m=audio 9 UDP/TLS/RTP/SAVPF ${payloads}`,
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:abcd',
    'a=ice-pwd:abcdefghijklmnopqrstuvwx',
    'a=setup:actpass',
    'a=mid:0',
    'a=sendrecv',
    'a=rtcp-mux',
    'a=rtpmap:111 opus/48000/2',
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:8 PCMA/8000',
    'a=rtpmap:126 telephone-event/8000',
    'a=rtpmap:127 telephone-event/48000',
    extra,
    'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
    'c=IN IP4 0.0.0.0',
    'a=mid:1',
    'a=sctp-port:5000',
    '',
  ]
    .filter((l, i, all) => l !== '' || i === all.length - 1)
    .join('\r\n');
}

describe('parseOffer', () => {
  it('answers in Opus with its 48 kHz telephone-event, and sees the data channel', () => {
    const parsed = parseOffer(offer('111 0 8 126 127'));
    expect(parsed.audio).toEqual({
      mid: '0',
      codec: 'opus',
      payloadType: 111,
      telephoneEventPayloadType: 127,
    });
    expect(parsed.dataMid).toBe('1');
  });

  it('takes G.711 when the browser ranks it before Opus', () => {
    expect(parseOffer(offer('0 111 126')).audio).toMatchObject({
      codec: 'PCMU',
      payloadType: 0,
      telephoneEventPayloadType: 126,
    });
    expect(parseOffer(offer('8 111')).audio).toMatchObject({ codec: 'PCMA', payloadType: 8 });
  });

  it('hands the connection an offer whose actpass is passive, so we answer active', () => {
    const { sdp } = parseOffer(offer());
    expect(sdp).toContain('a=setup:passive\r\n');
    expect(sdp).not.toContain('actpass');
  });

  it('refuses what it cannot answer, with the code the socket sends', () => {
    expect(() => parseOffer('')).toThrow(expect.objectContaining({ code: 'invalid_sdp' }));
    expect(() => parseOffer('hello')).toThrow(expect.objectContaining({ code: 'invalid_sdp' }));
    expect(() => parseOffer(offer().replace('a=fingerprint:sha-256 AB:CD\r\n', ''))).toThrow(
      expect.objectContaining({ code: 'invalid_sdp' }),
    );
    expect(() => parseOffer(offer().replace('m=audio 9', 'm=audio 0'))).toThrow(
      expect.objectContaining({ code: 'no_audio' }),
    );
    expect(() => parseOffer(offer().replace('a=sendrecv', 'a=inactive'))).toThrow(
      expect.objectContaining({ code: 'no_audio' }),
    );
    expect(() => parseOffer(offer('0 8'))).toThrow(expect.objectContaining({ code: 'unsupported_codec' }));
    expect(() => parseOffer(`${offer()}${'a=x\r\n'.repeat(10_000)}`)).toThrow(
      expect.objectContaining({ code: 'invalid_sdp' }),
    );
  });
});
