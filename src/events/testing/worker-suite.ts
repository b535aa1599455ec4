// Test-only set-up shared by the webhook worker's suites (webhook-worker-*.test.ts): one store of
// the given kind, a local receiver answering 200 and a guarded agent allowed to reach it; before
// each test the webhook tables emptied, a FakeClock at 2026-03-01 and the owner notices cleared.
// `store`, `receiver`, `clock` and `notices` are live bindings that workerSuite's hooks set, so a
// test reads them as it would its own suite's variables. Excluded from the build (tsconfig.build.json).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Agent } from 'undici';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/logger.js';
import type { Store } from '../../store/database.js';
import { startReceiver, type Receiver } from '../../../test/support/receiver.js';
import type { StoreKind } from '../../../test/support/stores.js';
import { testBox } from '../../../test/support/webhook-fixtures.js';
import { AddressPolicy } from '../address-policy.js';
import type { EventType } from '../event-types.js';
import { emitEvent } from '../outbox.js';
import type { EndpointPausedNotice, OwnerNotifier } from '../owner-notifier.js';
import { createGuardedAgent } from '../ssrf-guard.js';
import { WebhookWorker } from '../webhook-worker.js';

export let store: Store;
export let receiver: Receiver;
export let clock: FakeClock;
/** What the workers' default notifier was asked to tell endpoint owners, this test. */
export let notices: EndpointPausedNotice[];
let agent: Agent;

const notifier: OwnerNotifier = {
  endpointPaused: async (n) => void notices.push(n),
  close: () => undefined,
};

/** Registers the hooks of one suite on `kind`; call it first in the suite's describe. */
export function workerSuite(kind: StoreKind): void {
  beforeAll(async () => {
    store = await kind.open();
    receiver = await startReceiver();
    agent = createGuardedAgent({ policy: new AddressPolicy(['127.0.0.0/8']) });
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await store.close();
  });
  beforeEach(async () => {
    for (const t of [
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_events',
      'webhook_endpoints',
    ] as const) {
      await store.db.deleteFrom(t).execute();
    }
    clock = new FakeClock('2026-03-01T00:00:00Z');
    notices = [];
    receiver.reset();
    receiver.respond = (_r, res) => res.writeHead(200).end('ok');
  });
}

/** A worker on the suite's store and clock (jitter at its middle), with `extra` on top. */
export const worker = (extra: Partial<ConstructorParameters<typeof WebhookWorker>[0]> = {}) =>
  new WebhookWorker({
    store,
    clock,
    logger: silentLogger(),
    dispatcher: agent,
    secrets: testBox,
    notifier,
    random: () => 0.5,
    ...extra,
  });

/** Emits one event of `type` in the workspace's project, at the clock's time. */
export const emit = (
  ws: { workspaceId: string; projectId: string },
  type: EventType = 'call.ended',
  data = {},
) => store.db.transaction().execute((trx) => emitEvent(trx, { ...ws, type, data, now: clock.now() }));

/** The endpoint's delivery rows, oldest first. */
export const delivery = (endpointId: string) =>
  store.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at')
    .execute();
