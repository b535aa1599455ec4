import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../../auth/session-key';
import { fakeApi, json, page } from '../../../test/fetch';
import type { Graph } from './graph';
import { VersionsPanel } from './VersionsPanel';

const v1: Graph = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Hello' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'bye' },
  ],
};
const draft: Graph = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'hello', type: 'speak', config: { text: 'Welcome' } },
    { id: 'end', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'hello' },
    { source: 'hello', target: 'end' },
  ],
};

describe('VersionsPanel', () => {
  it('compares the live version with the draft: steps added, removed and changed, connections added and removed', async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    fakeApi([
      {
        method: 'GET',
        path: '/api/v1/workflows/w1/versions',
        reply: () =>
          json(200, page([{ version: 1, published_at: '2026-12-01T10:00:00Z', published_by: 'key:k1' }])),
      },
      {
        method: 'GET',
        path: '/api/v1/workflows/w1/versions/1',
        reply: () => json(200, { data: { version: 1, graph: v1 } }),
      },
    ]);
    render(
      <VersionsPanel
        workflowId="w1"
        generation={0}
        draft={() => draft}
        viewing={null}
        onView={() => {}}
        onRollback={async () => {}}
      />,
    );
    // Two reads before the diff shows (the versions, then version 1's graph): a loaded machine may
    // take longer than the default second.
    const changes = await screen.findByRole('list', { name: 'Changes' }, { timeout: 10_000 });
    expect(
      within(changes)
        .getAllByRole('listitem')
        .map((li) => [li.className, li.textContent]),
    ).toEqual([
      ['diff-add', '+ step end (end)'],
      ['diff-remove', '− step bye (hangup)'],
      ['diff-change', '~ step hello: text'],
      ['diff-add', expect.stringMatching(/^\+ hello.*end/)],
      ['diff-remove', expect.stringMatching(/^− hello.*bye/)],
    ]);
    await user.selectOptions(screen.getByLabelText('To'), '1');
    expect(await screen.findByText('No changes in behaviour.', {}, { timeout: 10_000 })).toBeTruthy();
  });
});
