// SRTP's key derivation (RFC 3711 4.3): six session keys (cipher key, authentication key and salt,
// for SRTP and for SRTCP) from one master key and master salt, each the AES-CM keystream of the
// master key started at (master salt XOR label) * 2^16. The key derivation rate is 0 (SDES's
// default, and all we accept), so the keys are derived once per master key, never re-derived.
import { AesCm } from './aes-cm.js';
import type { SrtpSuite } from './suites.js';

export const Label = {
  RtpEncryption: 0x00,
  RtpAuthentication: 0x01,
  RtpSalt: 0x02,
  RtcpEncryption: 0x03,
  RtcpAuthentication: 0x04,
  RtcpSalt: 0x05,
} as const;

export interface SessionKeys {
  readonly encryptionKey: Buffer;
  readonly authenticationKey: Buffer;
  readonly salt: Buffer;
}

/** One session key: `length` bytes of the PRF for `label` (index DIV kdr is zero). */
export function deriveKey(masterKey: Buffer, masterSalt: Buffer, label: number, length: number): Buffer {
  if (masterSalt.length !== 14) throw new Error('an SRTP master salt is 112 bits');
  const iv = Buffer.alloc(16);
  masterSalt.copy(iv, 0);
  // key_id = label || (index DIV kdr), 56 bits, right-aligned against the 112-bit salt: the label
  // lands on the salt's eighth byte, the 48 zero bits after it change nothing.
  iv[7] ^= label;
  return new AesCm(masterKey, length).keystream(iv, length);
}

export function deriveSessionKeys(
  suite: SrtpSuite,
  masterKey: Buffer,
  masterSalt: Buffer,
): { rtp: SessionKeys; rtcp: SessionKeys } {
  if (masterKey.length !== suite.keyLength)
    throw new Error(`${suite.name} takes a ${suite.keyLength * 8}-bit key`);
  const keys = (enc: number, auth: number, salt: number): SessionKeys => ({
    encryptionKey: deriveKey(masterKey, masterSalt, enc, suite.keyLength),
    authenticationKey: deriveKey(masterKey, masterSalt, auth, suite.authKeyLength),
    salt: deriveKey(masterKey, masterSalt, salt, suite.saltLength),
  });
  return {
    rtp: keys(Label.RtpEncryption, Label.RtpAuthentication, Label.RtpSalt),
    rtcp: keys(Label.RtcpEncryption, Label.RtcpAuthentication, Label.RtcpSalt),
  };
}
