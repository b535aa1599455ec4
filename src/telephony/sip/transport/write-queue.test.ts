// A TCP or TLS peer that stops reading: what we write to it piles up in the kernel's buffers and
// then in the socket's queue; past maxWriteQueueBytes the connection is closed instead of
// buffering without bound. Real sockets on loopback; the peer pauses its socket (reads nothing).
import { selfSigned } from '../../../../test/support/tls-cert.js';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { observeTelemetry, type TelemetryEvent } from '../../../shared/telemetry.js';
import type { SipRequest } from '../message/types.js';
import { Receiver } from './receiver.js';
import type { Source } from './routing.js';
import { StreamTransport } from './stream.js';

const LIMIT = 256 * 1024;
const CHUNK = 64 * 1024;

const options = (transport: string): string =>
  [
    'OPTIONS sip:service@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/${transport} 127.0.0.1:1;branch=z9hG4bKwq1;rport`,
    'Max-Forwards: 70',
    'To: <sip:service@127.0.0.1>',
    'From: <sip:probe@127.0.0.1>;tag=p1',
    'Call-ID: wq-1',
    'CSeq: 1 OPTIONS',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

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

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function transport(kind: 'TCP' | 'TLS', tls?: { cert: string; key: string }) {
  const clock = new FakeClock();
  const got: Array<{ req: SipRequest; source: Source }> = [];
  const receiver = new Receiver({
    clock,
    handler: { onRequest: (req, source) => got.push({ req, source }), onResponse: () => undefined },
  });
  const t = new StreamTransport({
    transport: kind,
    host: '127.0.0.1',
    port: 0,
    clock,
    receiver,
    maxWriteQueueBytes: LIMIT,
    ...(tls ? { tls } : {}),
  });
  const { port } = await t.listen();
  closers.push(() => t.close());
  return { t, port, got };
}

/**
 * Writes CHUNK after CHUNK to the peer's connection, letting the loop run between writes, until
 * the transport refuses one; returns what was written and the largest queue seen. Stops at
 * 256 MiB, far beyond any loopback buffering, so a missing bound fails instead of hanging.
 */
async function flood(t: StreamTransport, source: Source, socketOf: () => Socket | undefined) {
  const to = { transport: source.transport, host: source.address, port: source.port, reliable: true };
  const bytes = new Uint8Array(CHUNK).fill(0x41);
  let written = 0;
  let maxQueued = 0;
  for (let i = 0; i < 4096; i++) {
    if (!t.sendRaw(bytes, { ...to, connectionId: source.connectionId! })) break;
    written += CHUNK;
    maxQueued = Math.max(maxQueued, socketOf()?.writableLength ?? 0);
    await tick();
  }
  return { written, maxQueued };
}

/** The server side's socket of the only connection (the test reads its queue length). */
function serverSocket(t: StreamTransport): Socket | undefined {
  const byId = (t as unknown as { byId: Map<string, { socket: Socket }> }).byId;
  return [...byId.values()][0]?.socket;
}

describe('a peer that stops reading', () => {
  it('over TCP: the connection closes once the queue passes the limit; nothing is buffered beyond it', async () => {
    const events: TelemetryEvent[] = [];
    closers.push(observeTelemetry((e) => events.push(e)));
    const { t, port, got } = await transport('TCP');
    const peer = connect({ host: '127.0.0.1', port });
    closers.push(() => void peer.destroy());
    await new Promise((r) => peer.once('connect', r));
    peer.write(options('TCP'));
    await until(() => got.length === 1);
    peer.pause(); // reads nothing from now on

    const { written, maxQueued } = await flood(t, got[0]!.source, () => serverSocket(t));
    expect(written).toBeGreaterThan(LIMIT); // the kernel's buffers took some first
    expect(written).toBeLessThan(256 * 1024 * 1024);
    expect(maxQueued).toBeLessThanOrEqual(LIMIT + CHUNK);
    expect(t.overflows).toBe(1);
    await until(() => t.connections === 0);
    expect(events).toContainEqual({ kind: 'sip.write_queue_full', transport: 'TCP' });
    // The listener is still there for everyone else.
    const other = connect({ host: '127.0.0.1', port });
    closers.push(() => void other.destroy());
    await new Promise((r) => other.once('connect', r));
    other.write(options('TCP'));
    await until(() => got.length === 2);
  });

  it('keeps a connection whose peer reads, however much goes through it', async () => {
    const { t, port, got } = await transport('TCP');
    const peer = connect({ host: '127.0.0.1', port });
    closers.push(() => void peer.destroy());
    let received = 0;
    peer.on('data', (d: Buffer) => (received += d.length));
    await new Promise((r) => peer.once('connect', r));
    peer.write(options('TCP'));
    await until(() => got.length === 1);
    const to = { transport: 'TCP' as const, host: '127.0.0.1', port: 0, reliable: true };
    const bytes = new Uint8Array(CHUNK);
    for (let i = 0; i < 64; i++) {
      expect(t.sendRaw(bytes, { ...to, connectionId: got[0]!.source.connectionId! })).toBe(true);
      await until(() => (serverSocket(t)?.writableLength ?? 0) === 0);
    }
    await until(() => received === 64 * CHUNK);
    expect(t.overflows).toBe(0);
    expect(t.connections).toBe(1);
  });

  describe('over TLS', () => {
    let cert = '';
    let key = '';
    beforeAll(() => {
      const dir = mkdtempSync(join(tmpdir(), 'sip-wq-'));
      ({ cert, key } = selfSigned(dir));
    });

    it('closes the connection once the queue passes the limit', async () => {
      const { t, port, got } = await transport('TLS', { cert, key });
      const peer = tlsConnect({ host: '127.0.0.1', port, ca: cert, servername: 'localhost' });
      closers.push(() => void peer.destroy());
      await new Promise((r) => peer.once('secureConnect', r));
      peer.write(options('TLS'));
      await until(() => got.length === 1);
      peer.pause();

      const { written, maxQueued } = await flood(t, got[0]!.source, () => serverSocket(t));
      expect(written).toBeLessThan(256 * 1024 * 1024);
      expect(maxQueued).toBeLessThanOrEqual(LIMIT + CHUNK);
      expect(t.overflows).toBe(1);
      await until(() => t.connections === 0);
    });
  });
});
