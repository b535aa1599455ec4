// The stack on loopback: OPTIONS answered, unroutable requests refused with proper final
// responses, retransmissions absorbed by transactions, CANCEL matched to its INVITE.
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { getHeader } from './message/access.js';
import { createReply } from './message/build.js';
import { parseMessage } from './message/parse.js';
import type { SipResponse } from './message/types.js';
import { SipStack } from './stack.js';
import { selfSigned } from '../../../test/support/tls-cert.js';

const request = (method: string, branch: string, transport = 'UDP', cseqMethod = method): string =>
  [
    `${method} sip:service@127.0.0.1 SIP/2.0`,
    `Via: SIP/2.0/${transport} 127.0.0.1:9;branch=${branch};rport`,
    'Max-Forwards: 70',
    'To: <sip:service@127.0.0.1>',
    'From: <sip:probe@127.0.0.1>;tag=p1',
    `Call-ID: stack-${branch}`,
    `CSeq: 1 ${cseqMethod}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function start(onRequest?: ConstructorParameters<typeof SipStack>[0]['onRequest']) {
  let n = 0;
  const clock = new FakeClock();
  const stack = new SipStack({
    clock,
    host: '127.0.0.1',
    port: 0,
    serverName: 'Switchboard',
    newTag: () => `t${++n}`,
    ...(onRequest ? { onRequest } : {}),
  });
  const ports = await stack.listen();
  closers.push(() => stack.close());
  const client = createSocket('udp4');
  closers.push(() => client.close());
  const responses: SipResponse[] = [];
  client.on('message', (m) => responses.push(parseMessage(m) as SipResponse));
  await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()));
  return { stack, ports, client, responses, clock };
}

function until(cond: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (cond()) {
        clearInterval(poll);
        resolve();
      }
    }, 2);
  });
}

const sendTo = (client: Socket, port: number, text: string): void =>
  void client.send(text, port, '127.0.0.1');

describe('SipStack', () => {
  it('answers OPTIONS with what it allows, accepts and supports', async () => {
    const { client, ports, responses } = await start();
    sendTo(client, ports.udp!, request('OPTIONS', 'z9hG4bKo1'));
    await until(() => responses.length === 1);
    const r = responses[0];
    expect(r.status).toBe(200);
    expect(getHeader(r, 'Allow')).toContain('INVITE');
    expect(getHeader(r, 'Accept')).toBe('application/sdp');
    expect(getHeader(r, 'Server')).toBe('Switchboard');
    expect(r.to.tag).toBe('t1');
    expect(r.via[0].rport).toBe(client.address().port);
  });

  it('refuses what it cannot route, each with the right final response', async () => {
    const { client, ports, responses } = await start();
    sendTo(client, ports.udp!, request('INVITE', 'z9hG4bKi1'));
    await until(() => responses.length === 2);
    expect(responses.map((r) => r.status)).toEqual([100, 480]);
    // A retransmitted INVITE is answered by the transaction, not handled again.
    sendTo(client, ports.udp!, request('INVITE', 'z9hG4bKi1'));
    await until(() => responses.length === 3);
    expect(responses[2].status).toBe(480);
    expect(responses[2].to.tag).toBe(responses[1].to.tag);
    for (const [m, b] of [
      ['BYE', 'z9hG4bKb1'],
      ['SUBSCRIBE', 'z9hG4bKs1'],
      ['FROB', 'z9hG4bKf1'],
      ['CANCEL', 'z9hG4bKc1'],
    ]) {
      sendTo(client, ports.udp!, request(m, b));
    }
    await until(() => responses.length === 7);
    const byMethod = Object.fromEntries(responses.slice(3).map((r) => [r.cseq.method, r.status]));
    expect(byMethod).toEqual({ BYE: 481, SUBSCRIBE: 405, FROB: 501, CANCEL: 481 });
    expect(
      getHeader(
        responses.find((r) => r.status === 405)!,
        'Allow',
      ),
    ).toContain('OPTIONS');
  });

  it('answers CANCEL with 200 and the INVITE with 487 while it rings', async () => {
    const { client, ports, responses } = await start((req, _tx) => req.method === 'INVITE');
    sendTo(client, ports.udp!, request('INVITE', 'z9hG4bKr1'));
    await until(() => responses.length === 1);
    sendTo(client, ports.udp!, request('CANCEL', 'z9hG4bKr1'));
    await until(() => responses.length === 3);
    expect(responses.map((r) => `${r.status} ${r.cseq.method}`)).toEqual([
      '100 INVITE',
      '200 CANCEL',
      '487 INVITE',
    ]);
  });

  it('closes with no transaction left to hold a timer (an answered INVITE keeps timer L for 32 s)', async () => {
    const { stack, client, ports, responses, clock } = await start((req, tx) => {
      if (req.method !== 'INVITE') return false;
      tx!.respond(createReply(req, 200, 'OK', { toTag: 'a1' }));
      return true;
    });
    sendTo(client, ports.udp!, request('INVITE', 'z9hG4bKclose'));
    await until(() => responses.length === 2);
    expect(stack.transactions.size).toEqual({ client: 0, server: 1 });
    expect(clock.pending()).toBeGreaterThan(0);
    await stack.close();
    expect(stack.transactions.size).toEqual({ client: 0, server: 0 });
    expect(clock.pending()).toBe(0);
  });

  it('serves TCP on the same port, and hands requests to the transaction user', async () => {
    const { ports, stack } = await start((req, tx) => {
      if (req.method !== 'MESSAGE') return false;
      tx.respond(createReply(req, 202, 'Accepted', { toTag: 'm' }));
      return true;
    });
    expect(ports.tcp).toBe(ports.udp);
    const sock = connect(ports.tcp!, '127.0.0.1');
    closers.push(() => sock.destroy());
    const data = new Promise<string>((r) => sock.once('data', (d: Buffer) => r(d.toString())));
    sock.write(request('MESSAGE', 'z9hG4bKm1', 'TCP'));
    expect((parseMessage(await data) as SipResponse).status).toBe(202);
    expect(stack.receiver.stats.accepted).toBe(1);
  });

  it('without a certificate: no TLS listener, yet requests go out over TLS and the peer is heard on that connection', async () => {
    const { cert, key } = selfSigned(mkdtempSync(join(tmpdir(), 'sip-stack-tls-')));
    const sockets: TLSSocket[] = [];
    const got: string[] = [];
    const server = createTlsServer({ cert, key }, (sock) => {
      sockets.push(sock);
      sock.on('data', (d: Buffer) => got.push(d.toString()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    closers.push(() => {
      for (const sock of sockets) sock.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const heard: string[] = [];
    const clock = new FakeClock();
    const stack = new SipStack({
      clock,
      host: '127.0.0.1',
      port: 0,
      tlsClient: { ca: cert },
      onRequest: (req, tx, source) => {
        heard.push(`${req.method} over ${source.transport}`);
        tx?.respond(createReply(req, 200, 'OK', { toTag: 'h' }));
        return true;
      },
    });
    const ports = await stack.listen();
    closers.push(() => stack.close());
    expect(ports.tls).toBeUndefined();
    const port = (server.address() as { port: number }).port;
    const to = { transport: 'TLS' as const, host: '127.0.0.1', port, reliable: true };
    expect(stack.send(parseMessage(request('OPTIONS', 'z9hG4bKout1', 'TLS')), to)).toBe(true);
    await until(() => got.join('').includes('z9hG4bKout1'));
    // The peer's own request, on the connection we opened: heard and answered on it.
    sockets[0]!.write(request('MESSAGE', 'z9hG4bKback1', 'TLS'));
    await until(() => heard.length === 1 && got.join('').includes('SIP/2.0 200 OK'));
    expect(heard).toEqual(['MESSAGE over TLS']);
  });
});
