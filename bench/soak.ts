// npm run soak: the service (every role, in a process of its own, as `switchboard serve` runs it)
// under API requests, web sessions, sipp calls and webhook deliveries together, for SOAK_MINUTES
// (default 30). Samples its heap after GC every SOAK_SAMPLE_SECONDS (default 60) and prints a line
// each time, then reports the heap's growth (target < 5%) and everything lost: calls or sessions
// left non-final, events not delivered or delivered twice for one attempt, failed calls and sessions,
// unexpected API answers. Exits 1 when something was lost or the heap grew 5% or more.
//
//   SOAK_MINUTES=30 SOAK_CALLS_PER_SECOND=3 SOAK_SESSIONS_PER_SECOND=1 SOAK_API_PER_SECOND=40
//   SOAK_DATABASE_URL=postgres://…   (PostgreSQL instead of the embedded SQLite file)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatReport, runSoak, type SoakService } from './soak-run.js';
import type { ServiceMessage, SoakCommand } from './soak-service.js';

const env = process.env;
const minutes = Number(env.SOAK_MINUTES ?? 30);

/** Forks soak-service.js with --expose-gc and talks to it over IPC. */
function forkService(serviceEnv: Record<string, string>): Promise<SoakService> {
  const child = fork(fileURLToPath(new URL('./soak-service.js', import.meta.url)), [], {
    env: { ...process.env, ...serviceEnv },
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (type: ServiceMessage['type']) =>
    new Promise<ServiceMessage>((resolve, reject) => {
      const onMessage = (m: ServiceMessage) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) =>
        reject(new Error(`the service exited (${code}) before ${type}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const send = (c: SoakCommand) => child.send(c);
  return next('ready').then((ready) => ({
    banner: (ready as { banner: string }).banner,
    async heapAfterGc() {
      const reply = next('heap');
      send({ type: 'heap' });
      return ((await reply) as { heapUsed: number }).heapUsed;
    },
    async stop() {
      const reply = next('stopped');
      send({ type: 'stop' });
      await reply;
    },
  }));
}

const report = await runSoak(
  {
    seconds: minutes * 60,
    sampleSeconds: Number(env.SOAK_SAMPLE_SECONDS ?? Math.min(60, Math.max(5, (minutes * 60) / 10))),
    callsPerSecond: Number(env.SOAK_CALLS_PER_SECOND ?? 3),
    apiPerSecond: Number(env.SOAK_API_PER_SECOND ?? 40),
    sessionsPerSecond: Number(env.SOAK_SESSIONS_PER_SECOND ?? 1),
    ...(env.SOAK_DATABASE_URL ? { databaseUrl: env.SOAK_DATABASE_URL } : {}),
    progress: (line) => process.stderr.write(`${line}\n`),
  },
  forkService,
);
console.log(formatReport(report));
process.exitCode = report.lost === 0 && report.heapGrowthPercent < 5 ? 0 : 1;
