// The calls benchmark driving sipp (calls.bench.ts): a run of a scenario and what it reports (the
// statistics screen, the INVITE-to-200 response-time trace), the packets of the pcaps it plays,
// and a free UDP port for sipp's own UAS (the baseline).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// sipp's statistics screen and a free port read the same as for the SIP benchmark.
export { freePort as freeUdpPort, stat } from './sip-sipp.js';

export interface SippRun {
  code: number | null;
  out: string;
  seconds: number;
  dir: string;
}

export function runSipp(args: string[], cwd: string): Promise<SippRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn('sipp', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-30_000)));
    p.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-30_000)));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, seconds: (performance.now() - started) / 1000, dir: cwd }));
  });
}

/** The nearest-rank percentile `p` (0–100) of `values`; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Response times (ms, sipp's 1 ms tick) written by -trace_rtt: `date_ms;response_time_ms;rtd_name`. */
export function responseTimes(dir: string): number[] {
  const file = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'));
  if (!file) return [];
  return readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split(';'))
    .filter((c) => c.length >= 3)
    .map((c) => Number(c[1]))
    .filter((v) => Number.isFinite(v));
}

/** Packets in a pcap file (classic libpcap format, either byte order). */
export function pcapPackets(file: string): number {
  const b = readFileSync(file);
  const little = b.readUInt32LE(0) === 0xa1b2c3d4 || b.readUInt32LE(0) === 0xa1b23c4d;
  let at = 24;
  let n = 0;
  while (at + 16 <= b.length) {
    const included = little ? b.readUInt32LE(at + 8) : b.readUInt32BE(at + 8);
    at += 16 + included;
    n++;
  }
  return n;
}

export function sippArgs(
  target: string,
  scenario: string,
  dir: string,
  rate: number,
  calls: number,
  extra: string[] = [],
): string[] {
  const file = path.join(dir, 'scenario.xml');
  writeFileSync(file, scenario);
  return [
    target,
    '-sf',
    file,
    '-t',
    'u1',
    '-i',
    '127.0.0.1',
    '-mi',
    '127.0.0.1',
    '-r',
    String(rate),
    '-m',
    String(calls),
    '-l',
    String(Math.max(1000, rate * 20)),
    '-nostdin',
    '-timeout',
    '300s',
    '-trace_rtt',
    '-rtt_freq',
    '1',
    ...extra,
  ];
}
