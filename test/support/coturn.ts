// A TURN server for tests: Debian's coturn (`turnserver`) on loopback with one long-term
// credential, relaying only to loopback peers (the service under test), in a temporary directory.
//
// Two things made relay-only connections fail now and then under load ("peer connection failed"):
// - Relay ports. They were a random 200-port block in 50000-60200, wholly inside the kernel's
//   ephemeral range (32768-60999 here), so any socket bound to port 0 anywhere on the machine
//   (SIP stacks, ICE agents, other test runs' coturns) could already hold them, and two coturns
//   started by concurrent runs could pick overlapping blocks. Blocks now lie above the ephemeral
//   range, each is checked free port by port, and it is claimed with an exclusive lock file, so
//   concurrent runs on one machine never share one.
// - Readiness. coturn answers a STUN binding from its listener thread before its auth thread and
//   user database are up (the log says "SQLite DB connection success" after "UDP listener
//   opened"), so a binding answer did not mean an allocation would succeed. It now counts as up
//   only once an authenticated Allocate succeeds (released at once with a zero-lifetime Refresh).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocket, type Socket } from 'node:dgram';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { freeUdpPort } from './sipp.js';

export function haveTurnserver(): boolean {
  return spawnSync('turnserver', ['--help'], { stdio: 'ignore' }).error === undefined;
}

export interface Coturn {
  port: number;
  /** The UDP ports coturn relays from (a block claimed for this server alone). */
  relayPorts: { min: number; max: number };
  username: string;
  credential: string;
  /** The server as WEBRTC_ICE_SERVERS names it. */
  iceServer: { urls: string; username: string; credential: string };
  /** What coturn logged (allocations, permissions, errors). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * coturn on loopback. By default with one long-term user (`username`/`credential`); with
 * `authSecret`, in TURN REST mode (`use-auth-secret`, `static-auth-secret`): it then takes only
 * credentials minted from the secret (`expiry:user`, base64 HMAC-SHA1), and `username` and
 * `credential` are one such, valid for an hour, that readiness was checked with.
 */
export async function startCoturn(options: { authSecret?: string } = {}): Promise<Coturn> {
  const port = await freeUdpPort();
  const dir = mkdtempSync(join(tmpdir(), 'sb-coturn-'));
  const { authSecret } = options;
  const minted = authSecret
    ? restCredential(authSecret, 'readiness', Math.floor(Date.now() / 1000) + 3600)
    : null;
  const username = minted?.username ?? 'switchboard';
  const credential = minted?.credential ?? 'turn-test-secret';
  const relay = await claimRelayBlock();
  const child: ChildProcess = spawn(
    'turnserver',
    [
      '-n', // no configuration file
      '--listening-ip=127.0.0.1',
      '--relay-ip=127.0.0.1',
      `--listening-port=${port}`,
      `--min-port=${relay.min}`,
      `--max-port=${relay.max}`,
      ...(authSecret
        ? ['--use-auth-secret', `--static-auth-secret=${authSecret}`]
        : ['--lt-cred-mech', `--user=${username}:${credential}`]),
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
  try {
    for (;;) {
      const result = await allocate(port, username, credential, () => gone);
      if (result === 'allocated') break;
      await new Promise((r) => setTimeout(r, 100)); // auth not ready yet: ask again shortly
    }
  } catch (err) {
    child.kill('SIGTERM');
    relay.release();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    relayPorts: { min: relay.min, max: relay.max },
    username,
    credential,
    iceServer: { urls: `turn:127.0.0.1:${port}?transport=udp`, username, credential },
    log: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      relay.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const RELAY_BLOCK = 64;

/** The kernel's ephemeral range: ports it hands to sockets bound to port 0. */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high) return { low, high };
  } catch {
    // Not Linux: assume the IANA dynamic range.
  }
  return { low: 49152, high: 65535 };
}

/**
 * A block of RELAY_BLOCK UDP ports for coturn's relays: outside the ephemeral range (above it,
 * else below it), every port bindable right now, and claimed with an exclusive lock file (holding
 * our pid; a dead holder's lock is taken over) so no concurrent test run on the machine uses it.
 */
async function claimRelayBlock(): Promise<{ min: number; max: number; release(): void }> {
  const { low, high } = ephemeralRange();
  const starts: number[] = [];
  for (let p = high + 1; p + RELAY_BLOCK - 1 <= 65535; p += RELAY_BLOCK) starts.push(p);
  if (starts.length === 0)
    for (let p = 10240; p + RELAY_BLOCK - 1 < Math.min(low, 20000); p += RELAY_BLOCK) starts.push(p);
  starts.sort(() => Math.random() - 0.5);
  for (const min of starts) {
    const max = min + RELAY_BLOCK - 1;
    const lock = join(tmpdir(), `sb-coturn-relay-${min}.lock`);
    if (!takeLock(lock)) continue;
    if (await allBindable(min, max)) {
      return { min, max, release: () => rmSync(lock, { force: true }) };
    }
    rmSync(lock, { force: true });
  }
  throw new Error('no free block of relay ports for coturn');
}

function takeLock(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch {
      const holder = Number(readFileSync(path, { encoding: 'utf8', flag: 'a+' }) || '0');
      if (holder && alive(holder)) return false;
      rmSync(path, { force: true }); // its holder died without releasing it
    }
  }
  return false;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function allBindable(min: number, max: number): Promise<boolean> {
  for (let port = min; port <= max; port++) {
    const s = createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      s.once('error', () => resolve(false));
      s.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((r) => s.close(() => r()));
    if (!ok) return false;
  }
  return true;
}

// STUN/TURN (RFC 5389, RFC 5766) just far enough to allocate with a long-term credential.
const MAGIC = 0x2112a442;
const ALLOCATE = 0x0003;
const REFRESH = 0x0004;
const ATTR = {
  username: 0x0006,
  integrity: 0x0008,
  errorCode: 0x0009,
  lifetime: 0x000d,
  realm: 0x0014,
  nonce: 0x0015,
  requestedTransport: 0x0019,
} as const;

function attribute(type: number, value: Buffer): Buffer {
  const padded = Buffer.alloc(4 + Math.ceil(value.length / 4) * 4);
  padded.writeUInt16BE(type, 0);
  padded.writeUInt16BE(value.length, 2);
  value.copy(padded, 4);
  return padded;
}

function stunMessage(method: number, attrs: Buffer[], key?: Buffer): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(method, 0);
  header.writeUInt32BE(MAGIC, 4);
  randomBytes(12).copy(header, 8);
  let body = Buffer.concat(attrs);
  if (key) {
    // The integrity covers the header with a length that already counts the integrity itself.
    header.writeUInt16BE(body.length + 24, 2);
    const mac = createHmac('sha1', key)
      .update(Buffer.concat([header, body]))
      .digest();
    body = Buffer.concat([body, attribute(ATTR.integrity, mac)]);
  }
  header.writeUInt16BE(body.length, 2);
  return Buffer.concat([header, body]);
}

function readAttributes(m: Buffer): Map<number, Buffer> {
  const attrs = new Map<number, Buffer>();
  for (let at = 20; at + 4 <= m.length;) {
    const type = m.readUInt16BE(at);
    const length = m.readUInt16BE(at + 2);
    attrs.set(type, m.subarray(at + 4, at + 4 + length));
    at += 4 + Math.ceil(length / 4) * 4;
  }
  return attrs;
}

/** Sends `request` every 100 ms until a response with its transaction id comes back. */
async function transact(
  socket: Socket,
  port: number,
  request: Buffer,
  failed: () => Error | null,
): Promise<Buffer> {
  const id = request.subarray(8, 20);
  let answer: Buffer | null = null;
  const onMessage = (m: Buffer): void => {
    if (m.length >= 20 && m.subarray(8, 20).equals(id)) answer = m;
  };
  socket.on('message', onMessage);
  try {
    while (!answer) {
      const err = failed();
      if (err) throw err;
      socket.send(request, port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 100));
    }
    return answer;
  } finally {
    socket.off('message', onMessage);
  }
}

/** A TURN REST API credential (coturn's use-auth-secret): `expiry:user`, base64 HMAC-SHA1. */
export function restCredential(
  secret: string,
  user: string,
  expiresAt: number,
): { username: string; credential: string } {
  const username = `${expiresAt}:${user}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/**
 * Asks coturn on `port` for a relay with a long-term credential: 'allocated' (then released at
 * once), or the STUN error code of its refusal (401: the credential is wrong or has expired).
 * Used to wait until coturn is up (its listener, auth thread, user store and relay ports all
 * work) and to check which credentials it takes.
 */
export async function allocate(
  port: number,
  username: string,
  credential: string,
  failed: () => Error | null = () => null,
): Promise<'allocated' | number> {
  const socket = createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const udp = Buffer.from([17, 0, 0, 0]);
  try {
    for (;;) {
      // Unauthenticated first: the 401 carries the realm and a nonce.
      const challenge = readAttributes(
        await transact(
          socket,
          port,
          stunMessage(ALLOCATE, [attribute(ATTR.requestedTransport, udp)]),
          failed,
        ),
      );
      const realm = challenge.get(ATTR.realm);
      const nonce = challenge.get(ATTR.nonce);
      if (!realm || !nonce) continue;
      const key = createHash('md5').update(`${username}:${realm.toString()}:${credential}`).digest();
      const signed = (attrs: Buffer[]): Buffer[] => [
        ...attrs,
        attribute(ATTR.username, Buffer.from(username)),
        attribute(ATTR.realm, realm),
        attribute(ATTR.nonce, nonce),
      ];
      const answer = await transact(
        socket,
        port,
        stunMessage(ALLOCATE, signed([attribute(ATTR.requestedTransport, udp)]), key),
        failed,
      );
      if (answer.readUInt16BE(0) === 0x0103) {
        const zero = Buffer.alloc(4);
        await transact(
          socket,
          port,
          stunMessage(REFRESH, signed([attribute(ATTR.lifetime, zero)]), key),
          failed,
        );
        return 'allocated';
      }
      const error = readAttributes(answer).get(ATTR.errorCode);
      const code = error && error.length >= 4 ? error[2]! * 100 + error[3]! : 0;
      // A stale nonce is asked again; any other refusal is the answer.
      if (code !== 438) return code;
    }
  } finally {
    socket.close();
  }
}
