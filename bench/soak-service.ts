// The soak's service (soak.ts forks it): `switchboard serve` with every role, run by the same
// startService the command line uses, in a process of its own so its heap is measured alone. It
// answers the soak over the IPC channel: `heap` (collects garbage twice, then reports the heap)
// and `stop` (the graceful shutdown an operator's SIGTERM gives: calls and deliveries drained).
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/main.js';

export type ServiceMessage =
  { type: 'ready'; banner: string } | { type: 'heap'; heapUsed: number; rss: number } | { type: 'stopped' };

export type SoakCommand = { type: 'heap' } | { type: 'stop' };

/** Heap in use after two full collections (the second frees what the first's finalizers released). */
export function heapAfterGc(): { heapUsed: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

async function main(): Promise<void> {
  let banner = '';
  const out = { write: (c: string) => ((banner += c), true) } as unknown as NodeJS.WritableStream;
  const service = await startService(loadConfig(process.env), 'all', out);
  const send = (m: ServiceMessage) => process.send!(m);
  process.on('message', (m: SoakCommand) => {
    if (m.type === 'heap') send({ type: 'heap', ...heapAfterGc() });
    if (m.type === 'stop') {
      void service.close().then(() => {
        send({ type: 'stopped' });
        process.disconnect();
      });
    }
  });
  send({ type: 'ready', banner });
}

if (process.send) await main();
