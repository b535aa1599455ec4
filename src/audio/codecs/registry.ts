// From an SDP rtpmap encoding name to a codec instance: the one place the call controller turns a
// negotiated format into something that encodes. Each call gets its own instance (Opus keeps state).

import type { AudioCodec } from './audio-codec.js';
import { G711Codec } from './g711.js';
import { OpusCodec } from './opus.js';

/** Encoding names we can carry, in our default preference order. */
export const SUPPORTED_CODECS = ['opus', 'PCMU', 'PCMA'] as const;

/** A fresh codec for `name` (case-insensitive), or null when we do not speak it. */
export function createCodec(name: string, payloadType?: number): AudioCodec | null {
  switch (name.toLowerCase()) {
    case 'pcmu':
      return new G711Codec('ulaw');
    case 'pcma':
      return new G711Codec('alaw');
    case 'opus':
      return new OpusCodec({ payloadType });
    default:
      return null;
  }
}
