import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { CallsPage } from './CallsPage';

const call = (id: string, from: string) => ({
  id,
  direction: 'inbound',
  status: 'completed',
  from,
  to: '+14155550100',
  project_id: 'p1',
  workflow_id: 'w1',
  workflow_version: 1,
  session_id: null,
  duration_seconds: 42,
  hangup_reason: 'workflow_hangup',
  metadata: {},
  started_at: '2026-11-02T10:00:00Z',
  ended_at: '2026-11-02T10:00:42Z',
  created_at: '2026-11-02T10:00:00Z',
});

describe('CallsPage', () => {
  it("sends the filters as the API's query and pages by following the list's own links", async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/projects', reply: () => json(200, page([])) },
      {
        method: 'GET',
        path: '/api/v1/workflows',
        reply: () => json(200, page([{ id: 'w1', name: 'Menu' }])),
      },
      {
        method: 'GET',
        path: '/api/v1/calls',
        reply: (s) => {
          if (s.query.get('page') === '2') {
            return json(200, {
              ...page([call('c2', '+4930222')]),
              meta: { ...page([]).meta, current_page: 2, last_page: 2, from: 2, to: 2, total: 2 },
            });
          }
          const first = page([call('c1', '+4930111')]);
          return json(200, {
            ...first,
            links: {
              ...first.links,
              next: 'http://127.0.0.1:8080/api/v1/calls?page=2&per_page=1&status=completed&direction=inbound',
            },
            meta: { ...first.meta, last_page: 2, total: 2 },
          });
        },
      },
    ]);
    render(
      <MemoryRouter>
        <CallsPage />
      </MemoryRouter>,
    );
    expect(await screen.findByText('+4930111')).toBeTruthy();
    // The workflow that ran, by name and version, linked to its editor.
    expect((await screen.findByRole('link', { name: 'Menu · v1' })).getAttribute('href')).toBe(
      '/workflows/w1',
    );
    await user.selectOptions(screen.getByLabelText('Status'), 'completed');
    await user.selectOptions(screen.getByLabelText('Direction'), 'inbound');
    const filtered = sent.filter((s) => s.path === '/api/v1/calls').at(-1)!;
    expect(Object.fromEntries(filtered.query)).toEqual({ status: 'completed', direction: 'inbound' });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('+4930222')).toBeTruthy();
    const paged = sent.filter((s) => s.path === '/api/v1/calls').at(-1)!;
    expect(Object.fromEntries(paged.query)).toEqual({
      page: '2',
      per_page: '1',
      status: 'completed',
      direction: 'inbound',
    });
    expect(screen.getByText('Page 2 of 2')).toBeTruthy();
  });

  it('reads its filters and page from the URL, so a filtered list survives a reload and can be linked to', async () => {
    storeKey('pk_live_componenttestkey');
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/projects', reply: () => json(200, page([])) },
      { method: 'GET', path: '/api/v1/calls', reply: () => json(200, page([])) },
    ]);
    render(
      <MemoryRouter initialEntries={['/calls?status=failed&to=%2B14155550100&page=3&per_page=10&junk=1']}>
        <CallsPage />
      </MemoryRouter>,
    );
    expect(await screen.findByText('No calls match these filters.')).toBeTruthy();
    const first = sent.find((s) => s.path === '/api/v1/calls')!;
    expect(Object.fromEntries(first.query)).toEqual({
      status: 'failed',
      to: '+14155550100',
      page: '3',
      per_page: '10',
    });
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('failed');
    expect((screen.getByLabelText('To') as HTMLInputElement).value).toBe('+14155550100');
  });
});
