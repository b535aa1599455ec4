// SDES keying for SRTP (RFC 4568): reading and writing `a=crypto` attributes. Each side of the
// call sends with its own master key and salt, given base64'd in the attribute's `inline:` key;
// the offer lists the suites it can do (each with its key), the answer takes one by its tag.
//
// What we accept of an offered attribute: a suite we run (AES_CM_128_HMAC_SHA1_80 and _32,
// AES_256_CM_HMAC_SHA1_80), exactly one inline key of that suite's length, an optional key
// lifetime (ignored: no call lives through 2^31 packets), and no session parameters except the
// window-size hint. An MKI, several keys, a key derivation rate (KDR) or an unencrypted or
// unauthenticated mode make the attribute unusable, and the next one is tried. The attributes
// are read from the SDP text, not from sdp-transform's object, which keeps only the first session
// parameter and would hide the rest.

export type SdesSuiteName = 'AES_CM_128_HMAC_SHA1_80' | 'AES_CM_128_HMAC_SHA1_32' | 'AES_256_CM_HMAC_SHA1_80';

/** Bytes of master key plus master salt in each suite's inline key. */
export const SDES_KEY_LENGTHS: Readonly<Record<SdesSuiteName, number>> = {
  AES_CM_128_HMAC_SHA1_80: 30,
  AES_CM_128_HMAC_SHA1_32: 30,
  AES_256_CM_HMAC_SHA1_80: 46,
};

/** The profiles of an m-line that carries SRTP (RFC 3711, RFC 5124). */
export const SECURE_PROFILES: readonly string[] = ['RTP/SAVP', 'RTP/SAVPF'];

/** One suite with its master key and salt (concatenated, as the inline key carries them). */
export interface SdesKey {
  readonly suite: SdesSuiteName;
  readonly key: Buffer;
}

export interface OfferedCrypto extends SdesKey {
  readonly tag: number;
}

/** What SDES settled for a stream: the suite, our key (we send with it), theirs (they do). */
export interface NegotiatedSrtp {
  readonly suite: SdesSuiteName;
  readonly tag: number;
  readonly localKey: Buffer;
  readonly remoteKey: Buffer;
}

export type CryptoReading = OfferedCrypto | { readonly unusable: string };

const ATTRIBUTE = /^(\d{1,9})[ \t]+(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const LIFETIME = /^(?:2\^\d{1,2}|\d{1,20})$/;

/** Reads one `a=crypto` value (what follows `a=crypto:`). */
export function readCrypto(value: string): CryptoReading {
  const m = ATTRIBUTE.exec(value.trim());
  if (!m) return { unusable: 'malformed a=crypto' };
  const [, tag, suite, keyParams, sessionParams] = m;
  if (!Object.hasOwn(SDES_KEY_LENGTHS, suite)) return { unusable: `crypto suite ${suite}` };
  const name = suite as SdesSuiteName;
  const keys = keyParams.split(';');
  if (keys.length !== 1) return { unusable: 'several master keys' };
  if (!keys[0].startsWith('inline:')) return { unusable: 'a key method other than inline' };
  const [material, ...rest] = keys[0].slice('inline:'.length).split('|');
  if (rest.some((p) => p.includes(':'))) return { unusable: 'an MKI' };
  if (rest.length > 1 || (rest.length === 1 && !LIFETIME.test(rest[0])))
    return { unusable: 'malformed key lifetime' };
  if (!BASE64.test(material)) return { unusable: 'a key that is not base64' };
  const key = Buffer.from(material, 'base64');
  if (key.length !== SDES_KEY_LENGTHS[name]) return { unusable: `a ${key.length}-byte key for ${name}` };
  for (const param of (sessionParams ?? '').split(/[ \t]+/).filter(Boolean)) {
    if (!param.startsWith('WSH=')) return { unusable: `session parameter ${param.split('=')[0]}` };
  }
  return { tag: Number(tag), suite: name, key };
}

/** The `a=crypto` values of each m-section of an SDP, in order (index = m-line index). */
export function cryptoValuesByMedia(sdp: string): string[][] {
  const sections: string[][] = [];
  for (const raw of sdp.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('m=')) sections.push([]);
    else if (line.startsWith('a=crypto:') && sections.length > 0) {
      sections[sections.length - 1].push(line.slice('a=crypto:'.length));
    }
  }
  return sections;
}

/** The attribute for sdp-transform's writer: `a=crypto:<tag> <suite> inline:<key>`. */
export function cryptoAttribute(tag: number, key: SdesKey): { id: number; suite: string; config: string } {
  return { id: tag, suite: key.suite, config: `inline:${key.key.toString('base64')}` };
}
