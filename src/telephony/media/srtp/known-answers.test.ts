// Known answers: RFC 3711 appendix B.2 (the AES-CM keystream) and B.3 (key derivation), and the
// reference packets libsrtp's own driver checks (RTP and SRTCP under AES_CM_128_HMAC_SHA1_80,
// RTP under AES_256_CM_HMAC_SHA1_80), so our packets are byte for byte what other stacks send.
import { describe, expect, it } from 'vitest';
import { AesCm } from './aes-cm.js';
import { deriveKey, deriveSessionKeys, Label } from './key-derivation.js';
import { SrtpContext } from './srtp-context.js';
import { SRTP_SUITES } from './suites.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('RFC 3711 B.2: the AES-CM keystream', () => {
  const cm = new AesCm(hex('2B7E151628AED2A6ABF7158809CF4F3C'));
  const iv = hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000');

  it('starts with the table’s first three blocks', () => {
    expect(cm.keystream(iv, 48).toString('hex').toUpperCase()).toBe(
      'E03EAD0935C95E80E166B16DD92B4EB4' +
        'D23513162B02D0F72A43A2FE4A5F97AB' +
        '41E95B3BB0A2E8DD477901E4FCA894C0',
    );
  });

  it('ends, 65282 blocks on, with the table’s last three', () => {
    const segment = cm.keystream(iv, 1044512);
    expect(
      segment
        .subarray(0xfeff * 16, 0xff02 * 16)
        .toString('hex')
        .toUpperCase(),
    ).toBe(
      'EC8CDF7398607CB0F2D21675EA9EA1E4' +
        '362B7C3C6773516318A077D7FC5073AE' +
        '6A2CC3787889374FBEB4C81B17BA6C44',
    );
  });
});

describe('RFC 3711 B.3: key derivation', () => {
  const masterKey = hex('E1F97A0D3E018BE0D64FA32C06DE4139');
  const masterSalt = hex('0EC675AD498AFEEBB6960B3AABE6');

  it('derives the cipher key, the cipher salt and the 94-byte auth key', () => {
    expect(deriveKey(masterKey, masterSalt, Label.RtpEncryption, 16)).toEqual(
      hex('C61E7A93744F39EE10734AFE3FF7A087'),
    );
    expect(deriveKey(masterKey, masterSalt, Label.RtpSalt, 14)).toEqual(hex('30CBBC08863D8C85D49DB34A9AE1'));
    expect(deriveKey(masterKey, masterSalt, Label.RtpAuthentication, 94)).toEqual(
      hex(`CEBE321F6FF7716B6FD4AB49AF256A15 6D38BAA48F0A0ACF3C34E2359E6CDBCE
           E049646C43D9327AD175578EF7227098 6371C10C9A369AC2F94A8C5FBCDDDC25
           6D6E919A48B610EF17C2041E47403576 6B68642C59BBFC2F34DB60DBDFB2`),
    );
  });

  it('gives a suite its session keys: HMAC-SHA1 takes the first 160 bits of the auth key', () => {
    const keys = deriveSessionKeys(SRTP_SUITES.AES_CM_128_HMAC_SHA1_80, masterKey, masterSalt);
    expect(keys.rtp.encryptionKey).toEqual(hex('C61E7A93744F39EE10734AFE3FF7A087'));
    expect(keys.rtp.salt).toEqual(hex('30CBBC08863D8C85D49DB34A9AE1'));
    expect(keys.rtp.authenticationKey).toEqual(hex('CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4'));
    // SRTCP's keys come from their own labels.
    expect(keys.rtcp.encryptionKey).not.toEqual(keys.rtp.encryptionKey);
  });
});

describe('libsrtp’s reference packets', () => {
  const plainRtp = hex('800f1234decafbadcafebabe' + 'ab'.repeat(16));

  it('AES_CM_128_HMAC_SHA1_80: RTP and SRTCP both ways', () => {
    const key = hex('e1f97a0d3e018be0d64fa32c06de4139');
    const salt = hex('0ec675ad498afeebb6960b3aabe6');
    const sender = new SrtpContext(SRTP_SUITES.AES_CM_128_HMAC_SHA1_80, key, salt);
    const srtp = hex('800f1234decafbadcafebabe 4e55dc4ce79978d88ca4d215949d2402 b78d6acc99ea179b8dbb');
    expect(sender.protectRtp(plainRtp)).toEqual(srtp);

    const plainRtcp = hex('81c8000bcafebabe' + 'ab'.repeat(16));
    const srtcp = hex('81c8000bcafebabe 7128035be487b9bdbef89041f977a5a8 80000001 993e08cd54d6c1230798');
    sender.srtcpIndex = 1; // the reference packet is libsrtp's first, which it numbers 1
    expect(sender.protectRtcp(plainRtcp)).toEqual(srtcp);

    const receiver = new SrtpContext(SRTP_SUITES.AES_CM_128_HMAC_SHA1_80, key, salt);
    expect(receiver.unprotectRtp(Buffer.from(srtp))).toEqual(plainRtp);
    expect(receiver.unprotectRtcp(Buffer.from(srtcp))).toEqual(plainRtcp);
  });

  it('AES_256_CM_HMAC_SHA1_80: RTP', () => {
    const key = hex('f0f04914b513f2763a1b1fa130f10e2998f6f6e43e4309d1e622a0e332b9f1b6');
    const salt = hex('3b04803de51ee7c96423ab5b78d2');
    const srtp = hex('800f1234decafbadcafebabe f1d9de17ff251ff1aa007774b0b4b40d a08d9d9a5b3a55d8873b');
    expect(new SrtpContext(SRTP_SUITES.AES_256_CM_HMAC_SHA1_80, key, salt).protectRtp(plainRtp)).toEqual(
      srtp,
    );
    expect(
      new SrtpContext(SRTP_SUITES.AES_256_CM_HMAC_SHA1_80, key, salt).unprotectRtp(Buffer.from(srtp)),
    ).toEqual(plainRtp);
  });
});
