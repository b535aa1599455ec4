// The SRTP protection profiles we run (RFC 4568 6.2 for the AES-128 pair, RFC 6188 for AES-256),
// by the crypto-suite name SDES puts in `a=crypto`. Every one encrypts with AES in counter mode
// and authenticates with HMAC-SHA1 under a 160-bit key; they differ in the cipher key length and
// in how much of the HMAC an SRTP packet carries. SRTCP always carries 80 bits of it.

export type SrtpSuiteName = 'AES_CM_128_HMAC_SHA1_80' | 'AES_CM_128_HMAC_SHA1_32' | 'AES_256_CM_HMAC_SHA1_80';

export interface SrtpSuite {
  readonly name: SrtpSuiteName;
  /** Master (and session) cipher key, bytes. */
  readonly keyLength: 16 | 32;
  /** Master (and session) salt, bytes. */
  readonly saltLength: 14;
  /** Session authentication key, bytes (HMAC-SHA1). */
  readonly authKeyLength: 20;
  /** Authentication tag on SRTP packets, bytes. */
  readonly rtpTagLength: 4 | 10;
  /** Authentication tag on SRTCP packets, bytes: 80 bits for every suite here (RFC 4568 6.2.2). */
  readonly rtcpTagLength: 10;
}

export const SRTP_SUITES: Readonly<Record<SrtpSuiteName, SrtpSuite>> = {
  AES_CM_128_HMAC_SHA1_80: suite('AES_CM_128_HMAC_SHA1_80', 16, 10),
  AES_CM_128_HMAC_SHA1_32: suite('AES_CM_128_HMAC_SHA1_32', 16, 4),
  AES_256_CM_HMAC_SHA1_80: suite('AES_256_CM_HMAC_SHA1_80', 32, 10),
};

export function srtpSuite(name: string): SrtpSuite | undefined {
  return Object.hasOwn(SRTP_SUITES, name) ? SRTP_SUITES[name as SrtpSuiteName] : undefined;
}

function suite(name: SrtpSuiteName, keyLength: 16 | 32, rtpTagLength: 4 | 10): SrtpSuite {
  return { name, keyLength, saltLength: 14, authKeyLength: 20, rtpTagLength, rtcpTagLength: 10 };
}
