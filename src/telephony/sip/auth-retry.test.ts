// Retrying a request after 401/407 against our own digest server on a fake clock.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { retryWithCredentials } from './auth-retry.js';
import { DigestClient } from './digest.js';
import { DigestServer } from './digest-server.js';
import { getHeaders } from './message/access.js';
import { createReply, createRequest } from './message/build.js';
import { formatUri } from './message/uri.js';

const invite = createRequest({
  method: 'INVITE',
  uri: 'sip:+15551234@trunk.example.net',
  headers: [
    ['Via', 'SIP/2.0/UDP 192.0.2.4:5060;branch=z9hG4bKfirst;rport'],
    ['Max-Forwards', '70'],
    ['From', '<sip:sb@192.0.2.4>;tag=f1'],
    ['To', '<sip:+15551234@trunk.example.net>'],
    ['Call-ID', 'auth-1'],
    ['CSeq', '10 INVITE'],
    ['Contact', '<sip:sb@192.0.2.4>'],
    ['Content-Type', 'application/sdp'],
  ],
  body: 'v=0\r\n',
});

function setup() {
  const clock = new FakeClock();
  const server = new DigestServer({ realm: 'trunk.example.net', secret: 's', clock });
  const client = new DigestClient({ username: 'acct', password: 'pw' });
  const lookup = (u: string) => (u === 'acct' ? { password: 'pw' } : undefined);
  return { clock, server, client, lookup };
}

describe('retryWithCredentials', () => {
  it.each([
    [407, 'Proxy-Authenticate', 'Proxy-Authorization'],
    [401, 'WWW-Authenticate', 'Authorization'],
  ] as const)(
    'answers a %i with %s in a new transaction the server accepts',
    (status, challengeName, answerName) => {
      const { server, client, lookup } = setup();
      const challenge = createReply(invite, status, 'Auth', {
        toTag: 't',
        headers: server.challenge().map((v) => [challengeName, v] as const),
      });
      const retry = retryWithCredentials(invite, challenge, client, { branch: 'z9hG4bKsecond' })!;
      expect(retry.cseq).toEqual({ seq: 11, method: 'INVITE' });
      expect(retry.via[0]).toMatchObject({ branch: 'z9hG4bKsecond', rport: true, host: '192.0.2.4' });
      expect(retry.body).toEqual(invite.body);
      const creds = getHeaders(retry, answerName);
      expect(creds).toHaveLength(1);
      expect(creds[0]).toContain('algorithm=SHA-256');
      expect(
        server.verify({ method: 'INVITE', uri: formatUri(retry.uri), credentials: creds }, lookup),
      ).toMatchObject({ ok: true });
    },
  );

  it('does not loop: the same realm failing again without stale is the end', () => {
    const { server, client } = setup();
    const first = createReply(invite, 401, 'Unauthorized', {
      toTag: 't',
      headers: [['WWW-Authenticate', server.challenge()[0]]],
    });
    const retry = retryWithCredentials(invite, first, client, { branch: 'z9hG4bK2' })!;
    const again = createReply(retry, 401, 'Unauthorized', {
      toTag: 't',
      headers: [['WWW-Authenticate', server.challenge()[0]]],
    });
    expect(retryWithCredentials(retry, again, client, { branch: 'z9hG4bK3' })).toBeUndefined();
    const stale = createReply(retry, 401, 'Unauthorized', {
      toTag: 't',
      headers: [['WWW-Authenticate', server.challenge(true)[0]]],
    });
    const third = retryWithCredentials(retry, stale, client, { branch: 'z9hG4bK3' })!;
    expect(getHeaders(third, 'Authorization')).toHaveLength(1);
    expect(third.cseq.seq).toBe(12);
  });

  it('ignores challenges it cannot answer', () => {
    const { client } = setup();
    const basic = createReply(invite, 401, 'Unauthorized', {
      toTag: 't',
      headers: [['WWW-Authenticate', 'Basic realm="x"']],
    });
    expect(retryWithCredentials(invite, basic, client, { branch: 'z9hG4bK2' })).toBeUndefined();
    expect(
      retryWithCredentials(invite, createReply(invite, 403, 'Forbidden'), client, { branch: 'z9hG4bK2' }),
    ).toBeUndefined();
  });
});
