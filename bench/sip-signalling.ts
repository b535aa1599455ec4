// The SIP benchmark's signalling part (sip.bench.ts): sipp's UAC (INVITE, 200, ACK, BYE, 200; no
// media) at SIP_BENCH_RATE calls/s for SIP_BENCH_CALLS calls, against our stack answering with
// UasLeg and against sipp's own UAS (the baseline), and the line that reports each run.
import { spawn } from 'node:child_process';
import { answeringStack } from './sip-answering-stack.js';
import { freePort, sipp, stat } from './sip-sipp.js';

export const RATE = Number(process.env.SIP_BENCH_RATE ?? 1000);
export const CALLS = Number(process.env.SIP_BENCH_CALLS ?? 5000);
const SDP =
  'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';

export interface Run {
  readonly ok: number;
  readonly failed: number;
  readonly seconds: number;
  readonly code: number | null;
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

export async function ours(): Promise<Run & { rssGrowth: number }> {
  const { stack, port } = await answeringStack('b', (leg) => leg.answer(SDP));
  const rss0 = process.memoryUsage().rss;
  const run = await uac(port);
  const rssGrowth = process.memoryUsage().rss - rss0;
  await stack.close();
  return { ...run, rssGrowth };
}

export async function baseline(): Promise<Run> {
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

export function line(name: string, r: Run): string {
  const cps = r.ok / r.seconds;
  return `${name.padEnd(28)} ${String(r.ok).padStart(6)} ok ${String(r.failed).padStart(4)} failed  ${cps.toFixed(0).padStart(5)} calls/s`;
}
