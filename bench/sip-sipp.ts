// The SIP benchmark driving sipp (sip.bench.ts): a run and its output, the counts of its final
// statistics screen, a free UDP port for it, and the scenario files it plays from test/interop/.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function sipp(args: string[]): Promise<{ code: number | null; out: string }> {
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
export function stat(out: string, label: string): number {
  const lines = out.split('\n').filter((l) => l.includes(label));
  const last = lines.at(-1)?.split('|');
  return last ? Number(last[2]?.trim() ?? NaN) : NaN;
}

export async function freePort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The scenario sits in test/interop/ with the other sipp scenarios; found from bench/ or dist/bench/. */
export function scenario(name: string): string {
  const candidates = [`../test/interop/${name}`, `../../test/interop/${name}`].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`scenario ${name} not found in ${candidates.join(', ')}`);
  return found;
}
