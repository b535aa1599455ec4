// A TURN server for tests: Debian's coturn (`turnserver`) on loopback with one long-term
// credential, relaying only to loopback peers (the service under test), in a temporary directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { freeUdpPort } from './sipp.js';

export function haveTurnserver(): boolean {
  return spawnSync('turnserver', ['--help'], { stdio: 'ignore' }).error === undefined;
}

export interface Coturn {
  port: number;
  username: string;
  credential: string;
  /** The server as WEBRTC_ICE_SERVERS names it. */
  iceServer: { urls: string; username: string; credential: string };
  /** What coturn logged (allocations, permissions, errors). */
  log(): string;
  stop(): Promise<void>;
}

export async function startCoturn(): Promise<Coturn> {
  const port = await freeUdpPort();
  const dir = mkdtempSync(join(tmpdir(), 'sb-coturn-'));
  const username = 'switchboard';
  const credential = 'turn-test-secret';
  const relayPort = 50000 + Math.floor(Math.random() * 10000);
  const child: ChildProcess = spawn(
    'turnserver',
    [
      '-n', // no configuration file
      '--listening-ip=127.0.0.1',
      '--relay-ip=127.0.0.1',
      `--listening-port=${port}`,
      `--min-port=${relayPort}`,
      `--max-port=${relayPort + 200}`,
      '--lt-cred-mech',
      `--user=${username}:${credential}`,
      '--realm=switchboard.test',
      // The service under test listens on loopback, which coturn refuses to relay to by default.
      '--allow-loopback-peers',
      '--no-tls',
      '--no-dtls',
      '--no-cli',
      '--no-multicast-peers',
      `--userdb=${join(dir, 'turndb')}`,
      `--pidfile=${join(dir, 'turnserver.pid')}`,
      '--log-file=stdout',
      '--simple-log',
      '--verbose', // each allocation and permission in the log
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const onData = (d: Buffer): void => {
    out += d.toString();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let gone: Error | null = null;
  child.on('exit', (code) => (gone = new Error(`turnserver exited (${code}):\n${out}`)));
  child.on('error', (err) => (gone = err));
  await untilAnswersStun(port, () => gone);
  return {
    port,
    username,
    credential,
    iceServer: { urls: `turn:127.0.0.1:${port}?transport=udp`, username, credential },
    log: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sends STUN binding requests (RFC 5389) every 100 ms until one is answered: coturn is up. */
async function untilAnswersStun(port: number, failed: () => Error | null): Promise<void> {
  const socket = createSocket('udp4');
  try {
    const answered = new Promise<void>((resolve) =>
      socket.on('message', (m) => {
        if (m.readUInt16BE(0) === 0x0101) resolve();
      }),
    );
    let up = false;
    void answered.then(() => (up = true));
    while (!up) {
      const err = failed();
      if (err) throw err;
      const request = Buffer.alloc(20);
      request.writeUInt16BE(0x0001, 0); // binding request, no attributes
      request.writeUInt32BE(0x2112a442, 4);
      randomBytes(12).copy(request, 8);
      socket.send(request, port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    socket.close();
  }
}
