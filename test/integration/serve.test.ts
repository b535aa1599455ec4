// The serve entry as an operator meets it: the first start on an empty data directory creates the
// `default` workspace and prints its key once; the next start prints no key; the API answers with
// that key; SIP answers OPTIONS over UDP.
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';

function capture() {
  let text = '';
  return {
    stream: { write: (c: string) => ((text += c), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function options(port: number): Promise<string> {
  const sock = dgram.createSocket('udp4');
  const msg = [
    `OPTIONS sip:ping@127.0.0.1:${port} SIP/2.0`,
    'Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bK-serve-test;rport',
    'Max-Forwards: 70',
    'From: <sip:test@127.0.0.1>;tag=1',
    `To: <sip:ping@127.0.0.1:${port}>`,
    'Call-ID: serve-test@127.0.0.1',
    'CSeq: 1 OPTIONS',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    sock.on('message', (data) => {
      sock.close();
      resolve(data.toString());
    });
    sock.on('error', reject);
    sock.send(msg, port, '127.0.0.1');
  });
}

describe('switchboard serve', () => {
  it('prints the first key once, serves the API with it, and answers SIP OPTIONS', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-serve-'));
    const sipPort = await freeUdpPort();
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: '0',
      SIP_PORT: String(sipPort),
      LOG_LEVEL: 'silent',
    });

    const first = capture();
    const a = await startService(config, 'all', first.stream);
    const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(first.text())?.[0];
    expect(key).toBeDefined();
    expect(first.text()).toContain('SIP address:   sip:ws-');
    const reply = await options(sipPort);
    expect(reply.startsWith('SIP/2.0 200 OK')).toBe(true);
    expect(reply).toContain('CSeq: 1 OPTIONS');
    await a.close();

    const second = capture();
    const b = await startService({ ...config, sip: { ...config.sip, port: 0 } }, 'api', second.stream);
    expect(second.text()).not.toMatch(/pk_live_/);
    expect(second.text()).toContain('is listening');
    await b.close();
    expect(fs.statSync(path.join(dir, 'server.key')).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
