// The serve entry as an operator meets it: the first start on an empty data directory creates the
// `default` workspace and prints its key once; the next start prints no key; the API answers with
// that key; SIP answers OPTIONS over UDP.
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { freeSipPort } from '../support/sipp.js';

function capture() {
  let text = '';
  return {
    stream: { write: (c: string) => ((text += c), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

/** Starts the service on a fresh SIP port, trying again if another test took it in between. */
async function startWithSip(dir: string, out: NodeJS.WritableStream) {
  for (let attempt = 1; ; attempt++) {
    const sipPort = await freeSipPort();
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: '0',
      SIP_PORT: String(sipPort),
      LOG_LEVEL: 'silent',
    });
    try {
      return { config, sipPort, service: await startService(config, 'all', out) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
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
    const first = capture();
    const { config, sipPort, service: a } = await startWithSip(dir, first.stream);
    const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(first.text())?.[0];
    expect(key).toBeDefined();
    expect(first.text()).toContain('SIP address:   sip:ws-');
    // The dashboard's address, and a sign-in link with the key in the fragment, this first time only.
    expect(first.text()).toContain(`  Dashboard:  ${config.publicBaseUrl}/`);
    expect(first.text()).toContain(`  Sign in:    ${config.publicBaseUrl}/#key=${key}   (this start only)`);
    const reply = await options(sipPort);
    expect(reply.startsWith('SIP/2.0 200 OK')).toBe(true);
    expect(reply).toContain('CSeq: 1 OPTIONS');
    await a.close();

    const second = capture();
    const b = await startService({ ...config, sip: { ...config.sip, port: 0 } }, 'api', second.stream);
    expect(second.text()).not.toMatch(/pk_live_/);
    expect(second.text()).not.toContain('Sign in:');
    expect(second.text()).toContain('  Dashboard:  ');
    expect(second.text()).toContain('is listening');
    await b.close();
    expect(fs.statSync(path.join(dir, 'server.key')).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says in one banner line that speech output is unavailable, and how to install it, when espeak-ng is missing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-serve-'));
    const out = capture();
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: '0',
      SIP_PORT: '0',
      LOG_LEVEL: 'silent',
      ESPEAK_NG_COMMAND: path.join(dir, 'no-espeak-ng'),
    });
    const service = await startService(config, 'api', out.stream);
    const lines = out
      .text()
      .split('\n')
      .filter((l) => l.includes('Speech:'));
    expect(lines).toEqual([
      `  Speech:     OUTPUT UNAVAILABLE: ${path.join(dir, 'no-espeak-ng')} is not installed (apt-get install espeak-ng); calls run silent until then`,
    ]);
    await service.close();

    const fine = capture();
    const again = await startService(
      loadConfig({ SWITCHBOARD_DATA_DIR: dir, PORT: '0', SIP_PORT: '0', LOG_LEVEL: 'silent' }),
      'api',
      fine.stream,
    );
    expect(fine.text()).toContain('  Speech:     out espeak-ng (embedded), in soundswallower (embedded)');
    await again.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops what it started when a part cannot start (SIP port taken), so a retry works', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-serve-'));
    const blocker = dgram.createSocket('udp4');
    await new Promise<void>((r) => blocker.bind(0, '127.0.0.1', r));
    const taken = blocker.address().port;
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: '0',
      SIP_PORT: String(taken),
      LOG_LEVEL: 'silent',
    });
    await expect(startService(config, 'all', capture().stream)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await new Promise<void>((r) => blocker.close(() => r()));
    const again = await startService({ ...config, sip: { ...config.sip, port: 0 } }, 'all', capture().stream);
    await again.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** True when UDP and TCP can both bind `port` now: nothing of ours still holds it. */
  async function released(port: number): Promise<boolean> {
    const udp = dgram.createSocket('udp4');
    const udpOk = await new Promise<boolean>((r) => {
      udp.once('error', () => r(false));
      udp.bind(port, '127.0.0.1', () => r(true));
    });
    if (udpOk) await new Promise<void>((r) => udp.close(() => r()));
    const tcp = net.createServer();
    const tcpOk = await new Promise<boolean>((r) => {
      tcp.once('error', () => r(false));
      tcp.listen(port, '127.0.0.1', () => r(true));
    });
    if (tcpOk) await new Promise<void>((r) => tcp.close(() => r()));
    return udpOk && tcpOk;
  }

  it('releases the SIP ports it had opened when the HTTP port is taken', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-serve-'));
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const httpPort = (blocker.address() as net.AddressInfo).port;
    const sipPort = await freeSipPort();
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: String(httpPort),
      SIP_PORT: String(sipPort),
      LOG_LEVEL: 'silent',
    });
    await expect(startService(config, 'all', capture().stream)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(await released(sipPort)).toBe(true);
    await new Promise<void>((r) => blocker.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('releases UDP and TCP when the TLS certificate is bad', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-serve-'));
    const notPem = path.join(dir, 'not.pem');
    fs.writeFileSync(notPem, 'this is not a certificate\n');
    const sipPort = await freeSipPort();
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: '0',
      SIP_PORT: String(sipPort),
      SIP_TLS_PORT: '0',
      SIP_TLS_CERT: notPem,
      SIP_TLS_KEY: notPem,
      LOG_LEVEL: 'silent',
    });
    await expect(startService(config, 'all', capture().stream)).rejects.toThrow();
    expect(await released(sipPort)).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
