// Trunk registration over TLS with Kamailio as the carrier's registrar
// (test/interop/trunks/kamailio-tls-registrar.cfg, a certificate made by openssl for the test):
//   - a node with no certificate of its own (no SIP_TLS_CERT, so no TLS listener), trusting
//     Kamailio's certificate through SIP_TLS_CA, registers its trunk (transport tls): it is challenged, answers with the digest Kamailio verifies, becomes
//     `registered`, and refreshes before the short expiry Kamailio grants, over the same
//     connection (Kamailio logs each REGISTER with the connection's id and source port);
//   - sipp calls a number on Kamailio's UDP socket: Kamailio sends the INVITE to our registered
//     Contact on that connection (it may open no new one: set_forward_no_connect; and the
//     address it has is the connection's source port, where nothing listens), and the call is
//     answered, run and hung up through it;
//   - a wrong password leaves the trunk `failed` with the registrar's refusal (this node listens
//     for TLS too, with a certificate: the set-up for carriers that also call in over TLS).
// Skipped when kamailio (with its tls module) or openssl is missing, as the other Kamailio test;
// under CI a missing peer fails.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { selfSigned } from '../support/tls-cert.js';
import { freeSipPort, freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';
import { untilPasses } from '../support/poll.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CFG = path.join(ROOT, 'test/interop/trunks/kamailio-tls-registrar.cfg');
const haveKamailio = (): boolean =>
  spawnSync('sh', ['-c', 'command -v kamailio && command -v openssl']).status === 0 &&
  spawnSync('sh', ['-c', 'ls /usr/lib/*/kamailio/modules/tls.so']).status === 0;
const peerTest = (haveKamailio() && haveSipp()) || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const PASSWORD = 'kamailio-secret-1';
const DIALLED = '+14155550124';
const SAY_BYE = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Registered over TLS.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

interface Kamailio {
  udp: number;
  tls: number;
  cert: string;
  /** The certificate's file: the node's SIP_TLS_CA. */
  certPath: string;
  key: string;
  log(): string;
  child: ChildProcess;
}

const nodes: CallNode[] = [];
const kamailios: Kamailio[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
  for (const k of kamailios.splice(0)) {
    // Its own process group (it forks workers): the kill reaches them all.
    try {
      process.kill(-k.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Kamailio listening on UDP and TLS on loopback, with a certificate for 127.0.0.1 made now. */
async function startKamailio(): Promise<Kamailio> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-kam-tls-'));
  const made = selfSigned(dir);
  const cert = made.certPath;
  const key = made.keyPath;
  const tlsCfg = path.join(dir, 'tls.cfg');
  writeFileSync(
    tlsCfg,
    [
      '[server:default]',
      'method = TLSv1.2+',
      'verify_certificate = no',
      'require_certificate = no',
      `private_key = ${key}`,
      `certificate = ${cert}`,
      '',
      '[client:default]',
      'verify_certificate = no',
      'require_certificate = no',
      '',
    ].join('\n'),
  );
  const cfg = path.join(dir, 'kamailio.cfg');
  copyFileSync(CFG, cfg);
  const udp = await freeUdpPort();
  const tls = await freeSipPort();
  const child = spawn(
    'kamailio',
    [
      ...['-DD', '-E', '-n', '2', '-m', '32', '-M', '4'],
      ...['-f', cfg, '-Y', dir, '-w', dir, '-P', path.join(dir, 'kamailio.pid')],
      ...['-A', `SB_LISTEN_UDP=udp:127.0.0.1:${udp}`],
      ...['-A', `SB_LISTEN_TLS=tls:127.0.0.1:${tls}`],
      ...['-A', `SB_TLS_CFG="${tlsCfg}"`],
      ...['-A', `SB_PASSWORD="${PASSWORD}"`],
      ...['-A', 'SB_MAX_EXPIRES=4'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const k = {
    udp,
    tls,
    cert: made.cert,
    certPath: made.certPath,
    key: made.key,
    log: () => out,
    child,
  };
  kamailios.push(k);
  onTestFailed(() =>
    console.log(
      `kamailio's log:\n${out
        .split('\n')
        .filter((l) => !/registered exp|challenged/.test(l))
        .join('\n')
        .slice(-6000)}`,
    ),
  );
  // Ready once it says where it listens; a configuration it refuses ends the test at once.
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`kamailio exited:\n${out.slice(-3000)}`);
    }
    if (/Listening on/.test(out) && existsSync(path.join(dir, 'kamailio.pid'))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return k;
}

/** Kamailio's `SB registered … from ip:port over tls conn N` lines: source port and connection. */
function registrations(k: Kamailio): { port: string; conn: string }[] {
  return [...k.log().matchAll(/SB registered expires=\S* from 127\.0\.0\.1:(\d+) over tls conn (\d+)/g)].map(
    (m) => ({ port: m[1]!, conn: m[2]! }),
  );
}

/**
 * A node with a `tls` trunk registering at Kamailio. `client-only`: no certificate of its own (no
 * TLS listener), Kamailio's CA trusted through SIP_TLS_CA as `serve` reads it; `listening`: a
 * TLS listener with the same certificate (SIP_TLS_CERT) and the CA given to the stack directly.
 */
async function tlsTrunk(k: Kamailio, password: string, node: 'client-only' | 'listening') {
  const n = await startCallNode({
    trunks: { syncMs: 100, binding: { firstRetryMs: 60_000 } },
    ...(node === 'client-only'
      ? { config: { SIP_TLS_CA: k.certPath } }
      : { tls: { port: 0, cert: k.cert, key: k.key }, tlsClient: { ca: k.cert } }),
  });
  if (node === 'client-only') expect(n.node.address.tls).toBeUndefined();
  nodes.push(n);
  const world = await telephonyWorld(n, {
    number: DIALLED,
    termination: `sip:127.0.0.1:${k.tls}`,
    password,
    graphs: { line: SAY_BYE },
  });
  const patched = await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { register: true, transport: 'tls' });
  expect(patched.status, JSON.stringify(patched.data)).toBe(200);
  const trunk = async () => (await n.api('GET', `/sip-trunks/${world.trunkId}`)).data.data;
  return { n, trunk };
}

describe('e2e: trunk registration over TLS with Kamailio as the registrar', () => {
  peerTest(
    'with no certificate of our own (SIP_TLS_CA only): registered, refreshed on the same connection, and an INVITE routed to us over that connection',
    async () => {
      const k = await startKamailio();
      const { n, trunk } = await tlsTrunk(k, PASSWORD, 'client-only');
      await untilPasses(async () => expect((await trunk()).registration_status).toBe('registered'));
      expect(k.log()).toMatch(/SB challenged REGISTER from 127\.0\.0\.1:\d+ over tls/);
      // Granted 4 s: the refresh comes at half time, challenged and verified again, on the same
      // connection (same source port, same connection id).
      const twice = await untilPasses(() => {
        const r = registrations(k);
        if (r.length < 2) throw new Error('one REGISTER so far');
        return r;
      });
      expect(new Set(twice.map((r) => `${r.port}/${r.conn}`)).size, k.log().slice(-3000)).toBe(1);
      const until1 = Date.parse((await trunk()).registered_until);
      await untilPasses(async () =>
        expect(Date.parse((await trunk()).registered_until)).toBeGreaterThan(until1),
      );
      expect((await trunk()).registration_error).toBeNull();

      // A call through the registrar: our 200 (and later our BYE) on the binding's connection.
      const caller = await sipp(
        sippArgs(
          `127.0.0.1:${k.udp}`,
          scenarioFile('kamailio-tls-caller.xml', { DIALLED }, 'trunks'),
          await freeUdpPort(),
        ),
      ).done;
      expect(caller.code, `${caller.out.slice(-3000)}\n${k.log().slice(-3000)}`).toBe(0);
      const conn = twice[0]!.conn;
      expect(k.log()).toMatch(
        new RegExp(`SB reply 200 to INVITE from 127\\.0\\.0\\.1:${twice[0]!.port} over tls conn ${conn}\\b`),
      );
      expect(k.log()).not.toMatch(/SB INVITE failed/);
      // The caller's ACK went to us on it too (the alias Kamailio put in our 2xx's Contact).
      expect(k.log()).toMatch(
        new RegExp(
          `SB in-dialog ACK from \\S+ over udp to \\S+ via sip:127\\.0\\.0\\.1:${twice[0]!.port};transport=tls`,
        ),
      );
      const calls = await n.store.db.selectFrom('calls').selectAll().execute();
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ direction: 'inbound', to_number: DIALLED });
      await untilPasses(async () => {
        const row = await n.store.db.selectFrom('calls').select('status').executeTakeFirstOrThrow();
        expect(row.status).toBe('completed');
      });
      // Still the one connection for the registrations since.
      expect(new Set(registrations(k).map((r) => r.conn))).toEqual(new Set([conn]));
    },
    TIMEOUT,
  );

  peerTest(
    'a wrong password: Kamailio keeps challenging, the trunk is failed with the refusal',
    async () => {
      const k = await startKamailio();
      const { trunk } = await tlsTrunk(k, 'not-the-password', 'listening');
      await untilPasses(async () => {
        const t = await trunk();
        expect(t.registration_status).toBe('failed');
        expect(t.registration_error).toBe('401 Unauthorized: the registrar refused the credentials');
        expect(t.registered_until).toBeNull();
      });
      expect(registrations(k)).toEqual([]);
      // The first attempt and its answer to the challenge, refused; then the 60 s backoff: no loop.
      expect(k.log().match(/SB challenged REGISTER/g)).toHaveLength(2);
    },
    TIMEOUT,
  );
});
