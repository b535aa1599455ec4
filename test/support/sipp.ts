// sipp for the e2e suites: a sipp process and its output, whether sipp is installed, the scenarios
// of test/interop/calls (and /transfers) filled in, the common arguments, free UDP and TCP ports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pickPort } from './ports.js';

export interface Peer {
  done: Promise<{ code: number | null; out: string }>;
  kill(): void;
}

/** Runs sipp with the arguments given; `done` resolves with its exit code and output. */
export function sipp(args: string[]): Peer {
  const p = spawn('sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
  return { done, kill: () => p.kill('SIGKILL') };
}

export const haveSipp = (): boolean => spawnSync('sh', ['-c', 'command -v sipp']).status === 0;

const INTEROP = fileURLToPath(new URL('../interop/', import.meta.url));

/** A scenario of test/interop/calls (or /transfers) with its __NAMES__ filled in, written to a temp file. */
export function scenarioFile(
  name: string,
  vars: Record<string, string | number> = {},
  folder: 'calls' | 'transfers' | 'kamailio' | 'trunks' = 'calls',
): string {
  let text = readFileSync(`${INTEROP}${folder}/${name}`, 'utf8');
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`__${k}__`, String(v));
  const missing = /__[A-Z_]+__/.exec(text.replace(/<!--[\s\S]*?-->/g, ''));
  if (missing) throw new Error(`${name}: ${missing[0]} not filled in`);
  const dir = mkdtempSync(`${tmpdir()}/sipp-`);
  const file = `${dir}/${name}`;
  writeFileSync(file, text);
  return file;
}

/** The common sipp arguments: `calls` calls (one by default) over UDP on loopback, media on `mediaPort`. */
export function sippArgs(
  target: string,
  scenario: string,
  mediaPort: number,
  extra: string[] = [],
  calls = 1,
): string[] {
  return [target, ...common(scenario, mediaPort, calls), ...extra];
}

/** The same for sipp as a UAS (a carrier's or a callee's side) listening on `port`: no target. */
export function sippUasArgs(
  scenario: string,
  port: number,
  mediaPort: number,
  extra: string[] = [],
): string[] {
  return [...common(scenario, mediaPort, 1), '-p', String(port), ...extra];
}

function common(scenario: string, mediaPort: number, calls: number): string[] {
  return [
    '-sf',
    scenario,
    '-t',
    'u1',
    '-i',
    '127.0.0.1',
    '-mi',
    '127.0.0.1',
    '-mp',
    String(mediaPort),
    '-m',
    String(calls),
    '-nostdin',
    '-timeout',
    '90s',
    '-timeout_error',
  ];
}

/** A TCP port free on 127.0.0.1 right now (for an HTTP server the test starts). */
export async function freeTcpPort(): Promise<number> {
  return pickPort(['tcp']);
}

/** A UDP port nobody listens on right now (bound and released). */
export async function freeUdpPort(): Promise<number> {
  return pickPort(['udp']);
}

/** A port free for both UDP and TCP on `host` right now (SIP_PORT binds both). */
export async function freeSipPort(host = '127.0.0.1'): Promise<number> {
  return pickPort(['udp', 'tcp'], host);
}
