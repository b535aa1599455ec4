import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import type { Store } from '../store/database.js';
import { EventStream } from './events.js';
import { UsageMeter } from './usage-meter.js';

for (const kind of storeKinds()) {
  describe(`usage meter (${kind.name})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await kind.open();
    });
    afterAll(() => store.close());

    it('meters tokens per provider; sessions are counted at creation, not here', async () => {
      const stream = new EventStream(() => Date.parse('2026-04-01T00:00:00Z'));
      const meter = new UsageMeter({ db: store.db, workspaceId: 'w1', projectId: 'p1' });
      meter.attach(stream);
      stream.emit({ type: 'session.status', status: 'active' });
      stream.emit({ type: 'usage', llm_input_tokens: 7, llm_output_tokens: 0, provider: 'llm_vendor_2' });
      stream.emit({ type: 'usage', llm_input_tokens: 3, llm_output_tokens: 2, provider: 'llm_vendor_1' });
      await meter.flush();
      const rows = await store.db
        .selectFrom('usage_events')
        .select(['project_id', 'metric', 'provider', 'quantity', 'occurred_at'])
        .orderBy('metric')
        .orderBy('provider')
        .execute();
      expect(rows.map((r) => [r.metric, r.provider, Number(r.quantity)])).toEqual([
        ['llm_input_tokens', 'llm_vendor_1', 3],
        ['llm_input_tokens', 'llm_vendor_2', 7],
        ['llm_output_tokens', 'llm_vendor_1', 2],
      ]);
      expect(rows[0]).toMatchObject({ project_id: 'p1', occurred_at: '2026-04-01T00:00:00.000Z' });
    });
  });
}
