import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { deriveServerKeys } from './server-key.js';

describe('SecretBox', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox(deriveServerKeys('master').secretBox);
    const sealed = box.seal('hunter2');
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('hunter2');
    expect(box.seal('hunter2')).not.toBe(sealed);
  });

  it('refuses tampered or foreign ciphertext', () => {
    const box = new SecretBox(deriveServerKeys('master').secretBox);
    const other = new SecretBox(randomBytes(32));
    const sealed = box.seal('hunter2');
    expect(() => other.open(sealed)).toThrow();
    // One bit of the ciphertext flipped (in the bytes: a base64 character swap can leave them equal).
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1]! ^= 1;
    const flipped = `v1:${raw.toString('base64url')}`;
    expect(flipped).not.toBe(sealed);
    expect(() => box.open(flipped)).toThrow();
  });

  it('derives distinct keys per purpose', () => {
    const k = deriveServerKeys('master');
    expect(Buffer.from(k.joinToken).equals(k.secretBox)).toBe(false);
  });
});
