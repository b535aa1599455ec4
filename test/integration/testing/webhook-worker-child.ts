// A webhook worker in its own process, for the durability tests: they SIGKILL it mid-burst and
// start another, or run two side by side on PostgreSQL. Configured through the environment:
//   WORKER_SQLITE_PATH | WORKER_DATABASE_URL (+ WORKER_PG_SCHEMA), WORKER_SECRET_KEY (hex, 32 bytes),
//   WORKER_LEASE_MS, WORKER_CONCURRENCY, WORKER_ID.
// Prints "ready <pid>" on stdout once polling; SIGTERM stops it gracefully and prints
// "stopped <attempts sent>".
import { systemClock } from '../../../src/shared/clock.js';
import { createLogger } from '../../../src/shared/logger.js';
import { SecretBox } from '../../../src/shared/secret-box.js';
import { openStore } from '../../../src/store/database.js';
import { AddressPolicy } from '../../../src/events/address-policy.js';
import { createOwnerNotifier } from '../../../src/events/owner-notifier.js';
import { createGuardedAgent } from '../../../src/events/ssrf-guard.js';
import { WebhookWorker } from '../../../src/events/webhook-worker.js';

const env = process.env;
const store = await openStore(
  env.WORKER_DATABASE_URL
    ? { databaseUrl: env.WORKER_DATABASE_URL, pgSchema: env.WORKER_PG_SCHEMA, pgPoolSize: 4 }
    : { sqlitePath: env.WORKER_SQLITE_PATH! },
);
const logger = createLogger(env.LOG_LEVEL ?? 'warn');
const dispatcher = createGuardedAgent({ policy: new AddressPolicy(['127.0.0.0/8']) });
const worker = new WebhookWorker({
  store,
  clock: systemClock,
  logger,
  dispatcher,
  secrets: new SecretBox(Buffer.from(env.WORKER_SECRET_KEY!, 'hex')),
  notifier: createOwnerNotifier({ smtpUrl: undefined, logger }),
  leaseMs: Number(env.WORKER_LEASE_MS ?? 60_000),
  concurrency: Number(env.WORKER_CONCURRENCY ?? 16),
  pollIntervalMs: 50,
  ...(env.WORKER_ID ? { workerId: env.WORKER_ID } : {}),
});
worker.start();
process.stdout.write(`ready ${process.pid}\n`);
process.on('SIGTERM', () => {
  void worker.stop().then(async () => {
    process.stdout.write(`stopped ${worker.attemptsSent}\n`);
    await dispatcher.close();
    await store.close();
    process.exit(0);
  });
});
