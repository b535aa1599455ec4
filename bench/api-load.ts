// The API load bench:sip's media part can run beside its calls (SIP_BENCH_API=1): a Fastify route
// in the benchmark's own process (on the main event loop the calls' signalling and receive path
// share) that builds and serialises a project-sized JSON body per request, hammered by autocannon
// in a child process for the hold window. The figure it gives back is what the API got done.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import Fastify from 'fastify';

export interface ApiLoad {
  /** Runs autocannon for `seconds`; resolves with requests done and their p99 latency. */
  run(seconds: number): Promise<{ requests: number; p99Ms: number; errors: number }>;
  close(): Promise<void>;
}

export async function apiLoad(connections = 50): Promise<ApiLoad> {
  const app = Fastify({ logger: false });
  app.get('/calls', async () =>
    Array.from({ length: 200 }, (_, i) => ({
      id: `call_${i.toString(36).padStart(8, '0')}`,
      status: i % 7 === 0 ? 'in_progress' : 'completed',
      from: '+15550100' + String(i % 100).padStart(2, '0'),
      to: '+15550199' + String(i % 100).padStart(2, '0'),
      created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      variables: { attempt: i, notes: 'x'.repeat(40) },
    })),
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  return {
    run: (seconds) =>
      new Promise((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [bin, '-c', String(connections), '-d', String(seconds), '-j', `${url}/calls`],
          {
            stdio: ['ignore', 'pipe', 'ignore'],
          },
        );
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', reject);
        child.on('close', () => {
          try {
            const r = JSON.parse(out) as {
              requests: { total: number };
              latency: { p99: number };
              errors: number;
              non2xx: number;
            };
            resolve({ requests: r.requests.total, p99Ms: r.latency.p99, errors: r.errors + r.non2xx });
          } catch (err) {
            reject(new Error(`autocannon gave no result: ${(err as Error).message}`));
          }
        });
      }),
    close: () => app.close(),
  };
}
