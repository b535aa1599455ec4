// The transports on real loopback sockets: UDP request/response and error answers, TCP framing
// across chunks, keep-alives, idle close on the fake clock, connection reuse, and TLS.
import { selfSigned } from '../../../../test/support/tls-cert.js';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { createReply } from '../message/build.js';
import { parseMessage } from '../message/parse.js';
import type { SipRequest, SipResponse } from '../message/types.js';
import { Receiver } from './receiver.js';
import type { Source } from './routing.js';
import { responseDestination } from './routing.js';
import { StreamTransport } from './stream.js';
import { UdpTransport } from './udp.js';

const options = (transport: string, branch = 'z9hG4bKs1', host = '127.0.0.1:1'): string =>
  [
    'OPTIONS sip:service@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/${transport} ${host};branch=${branch};rport`,
    'Max-Forwards: 70',
    'To: <sip:service@127.0.0.1>',
    'From: <sip:probe@127.0.0.1>;tag=p1',
    'Call-ID: sock-1',
    'CSeq: 1 OPTIONS',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function receiver(clock: FakeClock, got: Array<{ req: SipRequest; source: Source }>) {
  return new Receiver({
    clock,
    handler: { onRequest: (req, source) => got.push({ req, source }), onResponse: () => undefined },
  });
}

/** Resolves once cond() holds, checking as socket events get processed (no time bound: vitest's timeout is the bound). */
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

/** A TCP port on loopback that nothing listens on (bound, then released). */
async function closedTcpPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function nextData(socket: Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
}

describe('UDP', () => {
  it('delivers requests with rport filled and routes the answer back', async () => {
    const clock = new FakeClock();
    const got: Array<{ req: SipRequest; source: Source }> = [];
    const udp = new UdpTransport({ host: '127.0.0.1', port: 0, receiver: receiver(clock, got) });
    const { port } = await udp.listen();
    closers.push(() => udp.close());
    const client = createSocket('udp4');
    closers.push(() => void client.close());
    const answer = new Promise<string>((resolve) => client.once('message', (m) => resolve(m.toString())));
    const arrived = until(() => got.length > 0);
    client.send(options('UDP'), port, '127.0.0.1');
    await arrived;
    const { req, source } = got[0];
    expect(req.via[0]).toMatchObject({ received: '127.0.0.1', rport: client.address().port });
    udp.send(createReply(req, 200, 'OK', { toTag: 't' }), responseDestination(req.via[0], source));
    const res = parseMessage(await answer) as SipResponse;
    expect(res.status).toBe(200);
    expect(res.via[0].rport).toBe(client.address().port);
  });

  it('answers a malformed datagram with 400', async () => {
    const clock = new FakeClock();
    const udp = new UdpTransport({ host: '127.0.0.1', port: 0, receiver: receiver(clock, []) });
    const { port } = await udp.listen();
    closers.push(() => udp.close());
    const client = createSocket('udp4');
    closers.push(() => void client.close());
    const answer = new Promise<string>((resolve) => client.once('message', (m) => resolve(m.toString())));
    client.send(options('UDP').replace('CSeq: 1 OPTIONS', 'CSeq: x'), port, '127.0.0.1');
    expect(await answer).toMatch(
      /^SIP\/2.0 400 Bad Request\r\nVia: SIP\/2.0\/UDP 127.0.0.1:1;branch=z9hG4bKs1;rport\r\n/,
    );
  });
});

describe('TCP', () => {
  async function server(clock = new FakeClock(), idleMs?: number) {
    const got: Array<{ req: SipRequest; source: Source }> = [];
    const t = new StreamTransport({
      transport: 'TCP',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, got),
      ...(idleMs ? { idleMs } : {}),
    });
    const { port } = await t.listen();
    closers.push(() => t.close());
    return { t, port, got, clock };
  }

  it('frames messages split and joined across writes, answers on the same connection', async () => {
    const { t, port, got } = await server();
    const sock = connect(port, '127.0.0.1');
    closers.push(() => void sock.destroy());
    await new Promise((r) => sock.once('connect', r));
    const wire = options('TCP', 'z9hG4bKa') + options('TCP', 'z9hG4bKb') + options('TCP', 'z9hG4bKc');
    sock.write(wire.slice(0, 100));
    sock.write(wire.slice(100, 700));
    const pong = nextData(sock);
    sock.write(wire.slice(700) + '\r\n\r\n');
    expect(await pong).toBe('\r\n');
    expect(got.map((g) => g.req.via[0].branch)).toEqual(['z9hG4bKa', 'z9hG4bKb', 'z9hG4bKc']);
    const reply = nextData(sock);
    t.send(
      createReply(got[0].req, 200, 'OK', { toTag: 'x' }),
      responseDestination(got[0].req.via[0], got[0].source),
    );
    expect((parseMessage(await reply) as SipResponse).status).toBe(200);
    expect(t.connections).toBe(1);
  });

  it('answers a framing error with 400 and closes the connection', async () => {
    const { port } = await server();
    const sock = connect(port, '127.0.0.1');
    closers.push(() => void sock.destroy());
    const closed = new Promise((r) => sock.once('close', r));
    const data = nextData(sock);
    sock.write(options('TCP').replace('Content-Length: 0', 'Content-Length: abc'));
    expect(await data).toMatch(/^SIP\/2.0 400 Bad Request\r\n/);
    await closed;
  });

  it('closes idle connections when the clock says so', async () => {
    const { port, t, clock, got } = await server(new FakeClock(), 60_000);
    const sock = connect(port, '127.0.0.1');
    closers.push(() => void sock.destroy());
    sock.write(options('TCP'));
    await until(() => got.length > 0);
    const closed = new Promise((r) => sock.once('close', r));
    clock.advance(59_999);
    expect(t.connections).toBe(1);
    clock.advance(1);
    await closed;
    await until(() => t.connections === 0);
  });

  it('reuses one outbound connection per peer', async () => {
    const far = await server();
    const clock = new FakeClock();
    const near = new StreamTransport({
      transport: 'TCP',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, []),
    });
    closers.push(() => near.close());
    const to = { transport: 'TCP' as const, host: '127.0.0.1', port: far.port, reliable: true };
    const req = (b: string) => parseMessage(options('TCP', b)) as SipRequest;
    expect(near.send(req('z9hG4bK1'), to)).toBe(true);
    expect(near.send(req('z9hG4bK2'), to)).toBe(true);
    await until(() => far.got.length === 2);
    expect(near.connections).toBe(1);
    expect(far.t.connections).toBe(1);
  });

  it('tells every sender on a connection that never opens (refused), and no one once it is open', async () => {
    const clock = new FakeClock();
    const near = new StreamTransport({
      transport: 'TCP',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, []),
    });
    closers.push(() => near.close());
    const closed = await closedTcpPort();
    const to = { transport: 'TCP' as const, host: '127.0.0.1', port: closed, reliable: true };
    const req = (b: string) => parseMessage(options('TCP', b)) as SipRequest;
    const errors: string[] = [];
    // Both writes are queued on the one connection being opened; each writer hears of its failure.
    expect(
      near.send(req('z9hG4bKr1'), to, (e) => errors.push(`1 ${(e as NodeJS.ErrnoException).code}`)),
    ).toBe(true);
    expect(
      near.send(req('z9hG4bKr2'), to, (e) => errors.push(`2 ${(e as NodeJS.ErrnoException).code}`)),
    ).toBe(true);
    await until(() => errors.length === 2);
    expect(errors).toEqual(['1 ECONNREFUSED', '2 ECONNREFUSED']);
    await until(() => near.connections === 0);

    const far = await server();
    const ok = { ...to, port: far.port };
    let heard = 0;
    expect(near.send(req('z9hG4bKok1'), ok, () => heard++)).toBe(true);
    await until(() => far.got.length === 1);
    expect(near.send(req('z9hG4bKok2'), ok, () => heard++)).toBe(true);
    await until(() => far.got.length === 2);
    // The far end going away later is not a failure of what was already delivered.
    await far.t.close();
    await until(() => near.connections === 0);
    expect(heard).toBe(0);
  });

  it('sends a request on a given inbound connection, and to host and port once it has closed', async () => {
    const near = await server();
    const far = await server();
    // The far end calls in from an ephemeral port; its Contact would name its listening port.
    const sock = connect(near.port, '127.0.0.1');
    closers.push(() => void sock.destroy());
    sock.write(options('TCP'));
    await until(() => near.got.length === 1);
    const connectionId = near.got[0].source.connectionId!;
    const to = { transport: 'TCP' as const, host: '127.0.0.1', port: far.port, reliable: true, connectionId };
    const req = (b: string) => parseMessage(options('TCP', b)) as SipRequest;
    const onConnection = nextData(sock);
    expect(near.t.send(req('z9hG4bKin'), to)).toBe(true);
    expect(await onConnection).toMatch(/branch=z9hG4bKin/);
    expect(far.got).toHaveLength(0);
    // The caller hangs up its connection: the next request opens one to host and port.
    sock.destroy();
    await until(() => near.t.connections === 0);
    // A response has no such fallback (with nothing open to host and port).
    expect(near.t.send(createReply(req('z9hG4bKr'), 200, 'OK', { toTag: 'x' }), to)).toBe(false);
    expect(near.t.send(req('z9hG4bKnew'), to)).toBe(true);
    await until(() => far.got.length === 1);
    expect(far.got[0].req.via[0].branch).toBe('z9hG4bKnew');
  });
});

describe('TLS', () => {
  let cert = '';
  let key = '';
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'sip-tls-'));
    ({ cert, key } = selfSigned(dir));
  });

  it('accepts SIP over TLS with the configured certificate', async () => {
    const clock = new FakeClock();
    const got: Array<{ req: SipRequest; source: Source }> = [];
    const t = new StreamTransport({
      transport: 'TLS',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, got),
      tls: { cert, key },
    });
    const { port } = await t.listen();
    closers.push(() => t.close());
    const sock = tlsConnect({ host: '127.0.0.1', port, ca: cert, servername: 'localhost' });
    closers.push(() => void sock.destroy());
    await new Promise((r) => sock.once('secureConnect', r));
    expect(sock.getPeerCertificate().subject.CN).toBe('127.0.0.1'); // ours (tls-cert.ts)
    const reply = new Promise<string>((resolve) => sock.once('data', (d: Buffer) => resolve(d.toString())));
    sock.write(options('TLS'));
    await until(() => got.length > 0);
    expect(got[0].source.transport).toBe('TLS');
    t.send(
      createReply(got[0].req, 200, 'OK', { toTag: 'x' }),
      responseDestination(got[0].req.via[0], got[0].source),
    );
    expect((parseMessage(await reply) as SipResponse).status).toBe(200);
  });

  it('opens outbound TLS connections checked against the configured CA', async () => {
    const clock = new FakeClock();
    const got: Array<{ req: SipRequest; source: Source }> = [];
    const far = new StreamTransport({
      transport: 'TLS',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, got),
      tls: { cert, key },
    });
    const { port } = await far.listen();
    closers.push(() => far.close());
    const near = new StreamTransport({
      transport: 'TLS',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, []),
      tlsClient: { ca: cert, servername: 'localhost' },
    });
    closers.push(() => near.close());
    const req = parseMessage(options('TLS', 'z9hG4bKtlsout')) as SipRequest;
    expect(near.send(req, { transport: 'TLS', host: '127.0.0.1', port, reliable: true })).toBe(true);
    await until(() => got.length === 1);
    expect(got[0].req.via[0].branch).toBe('z9hG4bKtlsout');
  });
  it('tells the sender when the TLS handshake fails (a certificate it does not trust)', async () => {
    const clock = new FakeClock();
    const far = new StreamTransport({
      transport: 'TLS',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, []),
      tls: { cert, key },
    });
    const { port } = await far.listen();
    closers.push(() => far.close());
    // No CA given: the self-signed certificate is refused, so the connection never opens.
    const near = new StreamTransport({
      transport: 'TLS',
      host: '127.0.0.1',
      port: 0,
      clock,
      receiver: receiver(clock, []),
    });
    closers.push(() => near.close());
    const req = parseMessage(options('TLS', 'z9hG4bKtlsbad')) as SipRequest;
    let error: Error | undefined;
    expect(
      near.send(req, { transport: 'TLS', host: '127.0.0.1', port, reliable: true }, (e) => (error = e)),
    ).toBe(true);
    await until(() => error !== undefined);
    expect(error!.message).toMatch(/self[- ]signed/i);
  });
});
