import { describe, expect, it } from 'vitest';
import { createCodec, SUPPORTED_CODECS } from './registry.js';

describe('createCodec', () => {
  it('knows every supported name, case-insensitively', () => {
    for (const name of SUPPORTED_CODECS)
      expect(createCodec(name)?.name.toLowerCase()).toBe(name.toLowerCase());
    expect(createCodec('pcmu')?.payloadType).toBe(0);
    expect(createCodec('PCMA')?.payloadType).toBe(8);
    expect(createCodec('OPUS', 96)?.payloadType).toBe(96);
    expect(createCodec('G729')).toBeNull();
  });
});
