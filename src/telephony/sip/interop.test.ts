// Real peers from Debian against SipStack: sipsak's OPTIONS and sipp as UAC over UDP and TCP. When
// CI is set a missing peer fails the test instead of skipping it.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { SipStack } from './stack.js';

const have = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
const peerTest = (bin: string) => (have(bin) || process.env.CI ? it : it.skip);
const SCENARIO = fileURLToPath(new URL('./interop/invite-refused.xml', import.meta.url));

function run(cmd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
}

const stacks: SipStack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

async function stack(): Promise<{ s: SipStack; port: number; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = new SipStack({ clock, host: '127.0.0.1', port: 0, serverName: 'Switchboard' });
  stacks.push(s);
  const { udp } = await s.listen();
  return { s, port: udp!, clock };
}

describe('interop', () => {
  peerTest('sipsak')('sipsak OPTIONS gets 200 OK', async () => {
    const { s, port } = await stack();
    const r = await run('sipsak', ['-vv', '-s', `sip:service@127.0.0.1:${port}`]);
    expect(r.out).toMatch(/SIP\/2\.0 200 OK/);
    expect(r.code).toBe(0);
    expect(s.receiver.stats).toMatchObject({ accepted: 1, answered: 0, discarded: 0 });
  });

  for (const transport of ['u1', 't1'] as const) {
    peerTest('sipp')(
      `sipp UAC over ${transport === 'u1' ? 'UDP' : 'TCP'}: INVITE refused with 480 and ACKed`,
      async () => {
        const { s, port, clock } = await stack();
        const r = await run('sipp', [
          `127.0.0.1:${port}`,
          '-sf',
          SCENARIO,
          '-t',
          transport,
          '-i',
          '127.0.0.1',
          '-m',
          '1',
          '-nostdin',
          '-timeout',
          '20s',
          '-timeout_error',
        ]);
        expect(r.code, r.out.slice(-2000)).toBe(0);
        // INVITE and its ACK both reached the stack, and the ACK matched the INVITE's transaction:
        // Confirmed ends after T4 (at once on TCP); an unmatched ACK would leave it Completed until H.
        expect(s.receiver.stats).toMatchObject({ accepted: 2, answered: 0, discarded: 0 });
        clock.advance(5000);
        expect(s.transactions.size.server).toBe(0);
      },
    );
  }
});
