// Real peers from Debian against SipStack: sipsak's OPTIONS and sipp as UAC over UDP and TCP. When
// CI is set a missing peer fails the test instead of skipping it.
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, systemClock } from '../../src/shared/clock.js';
import { dialogFromUac, isDialog, requestInDialog } from '../../src/telephony/sip/dialog/dialog.js';
import { createRequest } from '../../src/telephony/sip/message/build.js';
import type { SipResponse } from '../../src/telephony/sip/message/types.js';
import { buildOffer, readAnswer } from '../../src/telephony/sip/sdp/offer.js';
import { SipStack } from '../../src/telephony/sip/stack.js';

const have = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
const peerTest = (bin: string) => (have(bin) || process.env.CI ? it : it.skip);
const SCENARIO = fileURLToPath(new URL('./invite-refused.xml', import.meta.url));

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

  peerTest('sipp')('sipp UAS: our INVITE, 180, 200 with SDP, ACK and BYE through a dialog', async () => {
    // Real timers here: the peer is a real process, and Timer A covers sipp not listening yet.
    const s = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
    stacks.push(s);
    const ours = (await s.listen()).udp!;
    const probe = createSocket('udp4');
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    const sippPort = probe.address().port;
    await new Promise<void>((r) => probe.close(() => r()));
    const sipp = run('sipp', [
      '-sn',
      'uas',
      '-i',
      '127.0.0.1',
      '-p',
      String(sippPort),
      '-t',
      'u1',
      '-m',
      '1',
      '-nostdin',
      '-timeout',
      '20s',
      '-timeout_error',
    ]);

    const local = { address: '127.0.0.1', port: 40000, codecs: ['PCMA', 'PCMU'] as const };
    const invite = createRequest({
      method: 'INVITE',
      uri: `sip:service@127.0.0.1:${sippPort}`,
      headers: [
        ['Via', `SIP/2.0/UDP 127.0.0.1:${ours};branch=z9hG4bKinv${process.pid};rport`],
        ['Max-Forwards', '70'],
        ['From', `<sip:sb@127.0.0.1:${ours}>;tag=sb1`],
        ['To', `<sip:service@127.0.0.1:${sippPort}>`],
        ['Call-ID', `interop-${process.pid}@127.0.0.1`],
        ['CSeq', '1 INVITE'],
        ['Contact', `<sip:sb@127.0.0.1:${ours}>`],
        ['Content-Type', 'application/sdp'],
      ],
      body: buildOffer(
        { ...local, codecs: [...local.codecs] },
        { sessionId: '1', sessionVersion: 1, address: '127.0.0.1' },
      ),
    });
    const to = { transport: 'UDP' as const, host: '127.0.0.1', port: sippPort, reliable: false };
    const seen: number[] = [];
    let answer: ReturnType<typeof readAnswer> | undefined;
    const byeStatus = await new Promise<number>((resolve, reject) => {
      let answered = false;
      s.transactions.sendRequest(invite, to, {
        onResponse: (res: SipResponse) => {
          seen.push(res.status);
          if (res.status < 200 || answered) return;
          answered = true;
          answer = readAnswer(new TextDecoder().decode(res.body), { ...local, codecs: [...local.codecs] });
          const d = dialogFromUac(invite, res);
          if (!isDialog(d)) return reject(new Error(d.reason));
          const ack = requestInDialog(d, {
            method: 'ACK',
            via: `SIP/2.0/UDP 127.0.0.1:${ours};branch=z9hG4bKack${process.pid}`,
            cseq: 1,
          });
          s.send(ack.request, to);
          const bye = requestInDialog(ack.dialog, {
            method: 'BYE',
            via: `SIP/2.0/UDP 127.0.0.1:${ours};branch=z9hG4bKbye${process.pid}`,
          });
          s.transactions.sendRequest(bye.request, to, {
            onResponse: (r) => r.status >= 200 && resolve(r.status),
            onTimeout: () => reject(new Error('BYE timed out')),
          });
        },
        onTimeout: () => reject(new Error('INVITE timed out')),
      });
    });
    expect(byeStatus).toBe(200);
    expect(seen.slice(0, 2)).toEqual([180, 200]);
    expect(answer).toMatchObject({ ok: true, audio: { codec: { name: 'PCMU' } } });
    const r = await sipp;
    expect(r.code, r.out.slice(-2000)).toBe(0);
  });
});
