// carrierMedia: a trunk whose carrier carries only some codecs narrows our preference to them.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { RtpPortAllocator } from '../../media/port-allocator.js';
import type { MediaEnv } from '../call-media/call-media-setup.js';
import { carrierMedia } from './media-sip-leg.js';

const env = (codecs?: MediaEnv['codecs']): MediaEnv => ({
  clock: new FakeClock(0),
  ports: new RtpPortAllocator(40000, 40010),
  bindHost: '127.0.0.1',
  address: '127.0.0.1',
  ...(codecs ? { codecs } : {}),
});

describe('carrierMedia', () => {
  it('keeps our order of the codecs the carrier carries; theirs when ours names none of them', () => {
    expect(carrierMedia(env(['opus', 'PCMA', 'PCMU']), ['PCMU', 'PCMA']).codecs).toEqual(['PCMA', 'PCMU']);
    expect(carrierMedia(env(), ['PCMU', 'PCMA']).codecs).toEqual(['PCMU', 'PCMA']);
    expect(carrierMedia(env(['opus']), ['PCMU', 'PCMA']).codecs).toEqual(['PCMU', 'PCMA']);
    const plain = env(['opus', 'PCMU']);
    expect(carrierMedia(plain, undefined)).toBe(plain);
  });
});
