import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { iceServersFor, turnRestCredential } from './ice-servers.js';

describe('iceServersFor', () => {
  const stun = { urls: 'stun:stun.example.com' };

  it('hands out the fixed servers alone when no TURN secret is set', () => {
    expect(iceServersFor({ iceServers: [stun], turn: null }, 'sess-1', 1_800_000_000_000)).toEqual([stun]);
  });

  it('mints a TURN REST credential for the session: expiry:user, base64 HMAC-SHA1 of it', () => {
    const turn = { urls: ['turn:turn.example.com:3478'], secret: 'north', ttlSeconds: 600 };
    const out = iceServersFor({ iceServers: [stun], turn }, 'sess-1', 1_800_000_000_500);
    expect(out).toEqual([
      stun,
      {
        urls: ['turn:turn.example.com:3478'],
        username: '1800000600:sess-1',
        credential: createHmac('sha1', 'north').update('1800000600:sess-1').digest('base64'),
      },
    ]);
    // The scheme's own example values (coturn's README.turnserver: secret "north", user "ninefingers").
    expect(turnRestCredential('north', 'ninefingers', 1433895918)).toEqual({
      username: '1433895918:ninefingers',
      credential: createHmac('sha1', 'north').update('1433895918:ninefingers').digest('base64'),
    });
  });
});
