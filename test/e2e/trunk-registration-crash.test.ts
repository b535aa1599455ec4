// Registration across a SIP node that dies: `switchboard serve` (a process of its own, on the
// embedded store of its data directory, and on PostgreSQL when TEST_DATABASE_URL is set) registers
// a trunk with sipp as the registrar, which challenges and verifies the digest; the process is
// killed with SIGKILL, so nothing can unregister and the registrar keeps the binding. Started again
// on the same data directory, the node registers anew: a new Call-ID (RFC 3261 10.2.4 keeps one
// per boot cycle, and a killed process kept none), CSeq from 1, the same Contact (so a registrar
// replaces the stale binding instead of keeping a second one, RFC 3261 10.3), challenged, verified
// and granted; the trunk reads `registered` again with the new expiry; a call sipp sends to the
// registered Contact is answered and run by the workflow; and SIGTERM unregisters (Expires: 0) on
// that binding before the process exits. Under CI a missing sipp fails.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  freeSipPort,
  freeTcpPort,
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippUasArgs,
} from '../support/sipp.js';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../src/store/database.js';
import { switchboardCommand } from '../support/fresh-build.js';
import { untilPasses } from '../support/poll.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'sipp-secret-1';
const NUMBER = '+14155550177';
const SAY_BYE = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Registered again.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** `switchboard serve` (built, or from source when dist/ is stale); resolves once it takes calls. */
function serve(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; banner: string; output: () => string }> {
  const command = switchboardCommand(['serve']);
  const inherited = { ...process.env };
  // The embedded store of the data directory, this process alone: no shared database or bus.
  delete inherited.DATABASE_URL;
  delete inherited.REDIS_URL;
  delete inherited.SWITCHBOARD_SECRET_KEY;
  const child = spawn(command.file, command.args, {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      // The SIP line comes last: the trunks were read and their bindings started before it.
      if (/SIP:\s+127\.0\.0\.1/.test(out)) resolve({ child, banner: out, output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${out.slice(-3000)}`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
}

interface Register {
  binding: number;
  callId: string;
  cseq: number;
  contact: string;
  expires: string;
}

/** The REGISTERs sipp logged (registrar-crash.xml), in the order it received them. */
function registers(logFile: string): Register[] {
  if (!fs.existsSync(logFile)) return [];
  const lines = fs.readFileSync(logFile, 'utf8').split('\n');
  return lines.flatMap((line) => {
    const m = /^REGISTER (\d+) (\S+) (\d+) (\S+) (\d+)\s*$/.exec(line);
    if (!m) return [];
    return [
      { binding: Number(m[1]), callId: m[2]!, cseq: Number(m[3]), contact: m[4]!, expires: m[5] ?? '' },
    ];
  });
}

function rawLog(logFile: string): string {
  return fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '(no log)';
}

/**
 * Where the service keeps its rows: the data directory's embedded store, and PostgreSQL when
 * TEST_DATABASE_URL is set (a schema of its own, which the run's global teardown drops). The
 * server key stays in the data directory either way.
 */
function stores(): Array<{ name: string; env: () => Promise<Record<string, string>> }> {
  const url = process.env.TEST_DATABASE_URL;
  const sqlite = { name: 'sqlite', env: async () => ({}) };
  if (!url) return [sqlite];
  return [
    sqlite,
    {
      name: 'postgres',
      env: async () => {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        // Creates the schema; the service migrates it at its start.
        await (await openStore({ databaseUrl: url, pgSchema: schema, pgPoolSize: 1 })).close();
        const sep = url.includes('?') ? '&' : '?';
        return { DATABASE_URL: `${url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}` };
      },
    },
  ];
}

describe.each(stores())(
  'e2e: a killed SIP node registers its trunk again when it starts ($name)',
  (store) => {
    peerTest(
      'SIGKILL leaves the binding; the next process registers anew, takes a call on it, and SIGTERM unregisters',
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-reg-crash-'));
        const httpPort = await freeTcpPort();
        const rtpMin = 46000 + (process.pid % 20) * 100;
        const env = {
          SWITCHBOARD_DATA_DIR: path.join(dir, 'data'),
          HOST: '127.0.0.1',
          PORT: String(httpPort),
          SIP_HOST: '127.0.0.1',
          SIP_PORT: String(await freeSipPort()),
          SIP_DOMAIN: 'sip.test',
          RTP_PORT_MIN: String(rtpMin),
          RTP_PORT_MAX: String(rtpMin + 99),
          SIP_TRUNK_SYNC_SECONDS: '1',
          LOG_LEVEL: 'warn',
          ...(await store.env()),
        };
        const registrarPort = await freeUdpPort();
        const logFile = path.join(dir, 'registrar.log');
        const args = sippUasArgs(
          scenarioFile('registrar-crash.xml', { PASSWORD, DIALLED: NUMBER }, 'trunks'),
          registrarPort,
          await freeUdpPort(),
          ['-trace_logs', '-log_file', logFile],
        );
        args[args.indexOf('-m') + 1] = '2';
        const registrar = sipp(args);
        try {
          const first = await serve(env);
          expect(first.banner).toMatch(
            store.name === 'postgres' ? /Store: +PostgreSQL/ : /Store: +\S+switchboard\.db/,
          );
          const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(first.banner)![0];
          const api = async (method: string, url: string, body?: unknown) => {
            const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${url}`, {
              method,
              headers: {
                authorization: `Bearer ${key}`,
                ...(body ? { 'content-type': 'application/json' } : {}),
              },
              ...(body ? { body: JSON.stringify(body) } : {}),
            });
            const text = await res.text();
            if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
            return (JSON.parse(text) as { data: Record<string, unknown> & Array<Record<string, unknown>> })
              .data;
          };
          const project = await api('POST', '/projects', { name: 'registered line' });
          const workflow = await api('POST', '/workflows', {
            project_id: project.id,
            name: 'say and hang up',
            graph: SAY_BYE,
          });
          await api('POST', `/workflows/${String(workflow.id)}/publish`);
          const trunk = await api('POST', '/sip-trunks', {
            name: 'carrier',
            provider: 'generic',
            termination_uri: `sip:127.0.0.1:${registrarPort}`,
            auth_username: 'switchboard',
            auth_password: PASSWORD,
            transport: 'udp',
            register: true,
          });
          const number = await api('POST', '/phone-numbers', {
            number: NUMBER,
            sip_trunk_id: trunk.id,
            project_id: project.id,
          });
          await api('PATCH', `/phone-numbers/${String(number.id)}`, {
            dispatch_rules: [{ workflow_id: workflow.id }],
          });
          const read = () => api('GET', `/sip-trunks/${String(trunk.id)}`);
          const registered = () =>
            untilPasses(async () => {
              const t = await read();
              if (t.registration_status !== 'registered') throw new Error(String(t.registration_status));
              return t;
            });
          const before = await registered();
          expect(before.registration_error).toBeNull();
          const bound = registers(logFile);
          expect(
            bound.map((r) => [r.binding, r.cseq]),
            rawLog(logFile),
          ).toEqual([
            [1, 1],
            [1, 2],
          ]);

          first.child.kill('SIGKILL');
          expect(await exited(first.child)).toEqual({ code: null, signal: 'SIGKILL' });
          // Killed: no un-REGISTER could leave, the registrar still holds the binding it granted.
          expect(registers(logFile)).toEqual(bound);

          const second = await serve(env);
          const after = await untilPasses(async () => {
            const t = await registered();
            // The new process's grant, not the row the killed one left (registered too).
            if (Date.parse(String(t.registered_until)) <= Date.parse(String(before.registered_until)))
              throw new Error(`still the killed node's expiry: ${String(t.registered_until)}`);
            return t;
          });
          expect(after.registration_error).toBeNull();

          // sipp's call on the registered Contact: answered and run by the workflow, which hangs up.
          const call = await untilPasses(async () => {
            const calls = await api('GET', '/calls?direction=inbound');
            if (calls[0]?.status !== 'completed') throw new Error(String(calls[0]?.status));
            return calls[0];
          });
          expect(call).toMatchObject({
            direction: 'inbound',
            status: 'completed',
            hangup_reason: 'workflow_hangup',
            to: NUMBER,
            workflow_id: workflow.id,
          });

          second.child.kill('SIGTERM');
          expect(await exited(second.child), second.output().slice(-3000)).toEqual({ code: 0, signal: null });
          const result = await registrar.done;
          expect(result.code, result.out.slice(-3000)).toBe(0);
          expect(result.out).toMatch(/Successful call\s*\|\s*\S+\s*\|\s*2/);

          const seen = registers(logFile);
          const [a1, a2, b1, b2, b3] = seen;
          expect(seen).toHaveLength(5);
          // The killed node's binding: one Call-ID, CSeq 1 then 2 (the answer to the challenge).
          expect(a2!.callId).toBe(a1!.callId);
          // The restarted node's: a Call-ID of its own, CSeq from 1, the same Contact as before; its
          // graceful stop unregisters that binding (same Call-ID, next CSeq, Expires: 0).
          expect(b1!.callId).not.toBe(a1!.callId);
          expect(seen.slice(2).map((r) => [r.binding, r.callId, r.cseq, r.contact])).toEqual([
            [2, b1!.callId, 1, a2!.contact],
            [2, b1!.callId, 2, a2!.contact],
            [2, b1!.callId, 3, a2!.contact],
          ]);
          expect([a1!.expires, b2!.expires, b3!.expires]).toEqual(['3600', '3600', '0']);
        } finally {
          registrar.kill();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
      180_000,
    );
  },
);
