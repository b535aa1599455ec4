import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDbTime, type Store } from '../store/database.js';
import { storeKinds } from '../../test/support/stores.js';
import { seedEndpoint, seedWorkspace } from '../../test/support/webhook-fixtures.js';
import type { AttemptOutcome } from './deliver.js';
import { claimDue } from './delivery-claim.repo.js';
import { recordResults } from './delivery-record.js';
import { emitEvent } from './outbox.js';

// Everything a receiver can put in a log entry that JSON has to escape, short of a NUL (which
// PostgreSQL text cannot hold; the sender replaces it).
const AWKWARD = 'say "hi" \\ back\\slash \\u0000 not a NUL, tab\t, line\nbreak, \u0001\u001f\u007f é 日本 🎉';

describe.each(storeKinds())('recording attempts on $name', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(async () => {
    await store.close();
  });

  it('keeps each attempt in the log exactly as it was made, batch with or without failures', async () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const ws = await seedWorkspace(store.db, null, now);
    await seedEndpoint(store.db, { ...ws, url: 'https://example.test/hook', events: ['call.ended'], now });
    for (let i = 0; i < 3; i++) {
      await store.db
        .transaction()
        .execute((trx) => emitEvent(trx, { ...ws, type: 'call.ended', data: { i }, now }));
    }
    const claims = await claimDue(store.db, store.dialect, { owner: 'w1', now, leaseMs: 60_000, limit: 3 });
    expect(claims).toHaveLength(3);
    const outcome = (n: number, status: number): AttemptOutcome => ({
      attemptId: `0198a000-0000-7000-8000-00000000000${n}`,
      ok: status < 300,
      requestHeaders: { 'Content-Type': 'application/json', 'X-Service-Event': `call.ended ${AWKWARD}` },
      status,
      responseHeaders: { 'x-echo': AWKWARD, date: 'Sun, 01 Mar 2026 00:00:00 GMT' },
      responseBody: `${n}: ${AWKWARD}`,
      durationMs: 12.4 + n,
      error: status < 300 ? null : `endpoint answered ${status}: ${AWKWARD}`,
      startedAt: now - 100 * n,
    });
    // The first batch only succeeds (one statement on PostgreSQL); the second fails one attempt.
    const made = [outcome(0, 200), outcome(1, 503), outcome(2, 204)];
    await recordResults(store.db, 'w1', [{ claim: claims[0]!, outcome: made[0]! }], now);
    await recordResults(
      store.db,
      'w1',
      [
        { claim: claims[1]!, outcome: made[1]! },
        { claim: claims[2]!, outcome: made[2]! },
      ],
      now,
    );

    const rows = await store.db.selectFrom('webhook_attempts').selectAll().orderBy('id').execute();
    expect(rows).toEqual(
      made.map((o, i) => ({
        id: o.attemptId,
        delivery_id: claims[i]!.id,
        attempt_number: 1,
        request_headers: JSON.stringify(o.requestHeaders),
        response_status: o.status,
        response_headers: JSON.stringify(o.responseHeaders),
        response_body: o.responseBody,
        duration_ms: Math.round(o.durationMs),
        error: o.error,
        started_at: toDbTime(o.startedAt),
      })),
    );
  });
});
