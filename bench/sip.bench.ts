// SIP signalling benchmark: sipp's UAC (INVITE, 200, ACK, BYE, 200; no media) against our stack
// answering with UasLeg, next to the same sipp UAC against sipp's own UAS, in the same run. Prints
// calls per second reached with no failed call, and our rate as a ratio of sipp-to-sipp.
//   npm run bench:sip            (SIP_BENCH_RATE=1000 calls/s, SIP_BENCH_CALLS=5000; raise the rate to find the ceiling)
// Media (concurrent G.711 calls) is the media bench's part.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { systemClock } from '../src/shared/clock.js';
import { SipStack } from '../src/telephony/sip/stack.js';
import { UasLeg } from '../src/telephony/sip/uas-leg.js';

const RATE = Number(process.env.SIP_BENCH_RATE ?? 1000);
const CALLS = Number(process.env.SIP_BENCH_CALLS ?? 5000);
const SDP =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';

interface Run {
  readonly ok: number;
  readonly failed: number;
  readonly seconds: number;
  readonly code: number | null;
}

function sipp(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    p.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
}

/** Cumulative column of sipp's final statistics screen. */
function stat(out: string, label: string): number {
  const lines = out.split('\n').filter((l) => l.includes(label));
  const last = lines.at(-1)?.split('|');
  return last ? Number(last[2]?.trim() ?? NaN) : NaN;
}

async function uac(port: number): Promise<Run> {
  const started = performance.now();
  const r = await sipp([
    '-sn',
    'uac',
    `127.0.0.1:${port}`,
    '-i',
    '127.0.0.1',
    '-r',
    String(RATE),
    '-m',
    String(CALLS),
    '-d',
    '0',
    '-nostdin',
    '-timeout',
    '120s',
  ]);
  const seconds = (performance.now() - started) / 1000;
  return { ok: stat(r.out, 'Successful call'), failed: stat(r.out, 'Failed call'), seconds, code: r.code };
}

async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function ours(): Promise<Run & { rssGrowth: number }> {
  let n = 0;
  let port = 0;
  const stack = new SipStack({
    clock: systemClock,
    host: '127.0.0.1',
    port: 0,
    throttle: { ratePerSecond: 1e6, burst: 1e6 },
    onRequest: (req, tx) => {
      if (req.method !== 'INVITE') return false;
      const leg = new UasLeg(
        {
          stack,
          clock: systemClock,
          contact: `<sip:sb@127.0.0.1:${port}>`,
          newId: () => `b${++n}`,
          localHost: '127.0.0.1',
          localPort: port,
        },
        req,
        tx,
        { cancelled: () => undefined, bye: () => undefined, ackTimeout: () => undefined },
      );
      leg.answer(SDP);
      return true;
    },
  });
  port = (await stack.listen()).udp!;
  const rss0 = process.memoryUsage().rss;
  const run = await uac(port);
  const rssGrowth = process.memoryUsage().rss - rss0;
  await stack.close();
  return { ...run, rssGrowth };
}

async function baseline(): Promise<Run> {
  const port = await freePort();
  const server = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(port), '-nostdin'], {
    stdio: 'ignore',
  });
  try {
    return await uac(port);
  } finally {
    server.kill('SIGTERM');
  }
}

function line(name: string, r: Run): string {
  const cps = r.ok / r.seconds;
  return `${name.padEnd(28)} ${String(r.ok).padStart(6)} ok ${String(r.failed).padStart(4)} failed  ${cps.toFixed(0).padStart(5)} calls/s`;
}

async function main(): Promise<void> {
  console.log(`sipp UAC at ${RATE} calls/s, ${CALLS} calls, no media`);
  const base = await baseline();
  console.log(line('sipp UAC -> sipp UAS', base));
  const us = await ours();
  console.log(line('sipp UAC -> Switchboard', us));
  const ratio = us.ok / us.seconds / (base.ok / base.seconds);
  // Calls here last a few ms, so memory per concurrent call is the media bench's figure, not this one.
  console.log(
    `ratio to sipp-to-sipp: ${(ratio * 100).toFixed(0)}%   RSS growth over the run: ${(us.rssGrowth / 1048576).toFixed(1)} MiB`,
  );
  process.exitCode = us.failed > 0 || !(us.ok > 0) ? 1 : 0;
}

void main();
