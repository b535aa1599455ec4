import { act, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { UsagePage } from './UsagePage';

// uPlot (the chart) reads matchMedia when it loads; jsdom has none.
vi.hoisted(() => {
  window.matchMedia ??= (query: string) =>
    ({
      matches: false,
      media: query,
      addEventListener() {},
      removeEventListener() {},
    }) as unknown as MediaQueryList;
});

describe('UsagePage', () => {
  it('says once that the key may not read usage, however many of its reads were refused', async () => {
    storeKey('pk_live_componenttestkey');
    const refused = () => json(403, { message: 'This API key lacks the "usage:read" scope.' });
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/projects', reply: () => json(200, page([])) },
      { method: 'GET', path: '/api/v1/plan', reply: refused },
      { method: 'GET', path: '/api/v1/usage', reply: refused },
    ]);
    render(
      <MemoryRouter>
        <UsagePage />
      </MemoryRouter>,
    );
    await screen.findByText(/lacks the "usage:read" scope/);
    // Every read was sent (the plan and three groupings); let their answers settle, then count.
    await waitFor(() => expect(sent.filter((s) => s.path !== '/api/v1/projects')).toHaveLength(4));
    for (let i = 0; i < 5; i++) await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(screen.getAllByText(/lacks the "usage:read" scope/)).toHaveLength(1);
  });
});
