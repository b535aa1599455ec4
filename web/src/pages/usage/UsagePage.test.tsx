import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { invalidateProjects } from '../../api/projects';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { UsagePage } from './UsagePage';
import { METRICS, presetRanges, type Metrics } from './usage-data';

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

  it("shows the plan's allowances with what is left, bars of the chosen metric and what each provider metered", async () => {
    storeKey('pk_live_componenttestkey');
    invalidateProjects();
    const user = userEvent.setup({ delay: null });
    const zero = Object.fromEntries(METRICS.map((m) => [m.value, 0])) as Metrics;
    const groups: Record<string, unknown[]> = {
      day: [
        { day: '2026-11-01', metrics: { ...zero, calls: 2 } },
        { day: '2026-11-02', metrics: { ...zero, calls: 1, sessions: 3 } },
      ],
      project: [
        { project_id: 'p1', metrics: { ...zero, calls: 3, sessions: 1 } },
        { project_id: 'p2', metrics: { ...zero, sessions: 2 } },
      ],
      provider: [
        { provider: 'generic', metrics: { ...zero, voice_minutes: 1.25 } },
        { provider: 'tts_vendor_1', metrics: { ...zero, tts_characters: 44 } },
        { provider: null, metrics: { ...zero, calls: 3, sessions: 3 } },
      ],
    };
    const { sent } = fakeApi([
      {
        method: 'GET',
        path: '/api/v1/projects',
        reply: () =>
          json(
            200,
            page([
              { id: 'p1', name: 'Front desk' },
              { id: 'p2', name: 'Sales' },
            ]),
          ),
      },
      {
        method: 'GET',
        path: '/api/v1/plan',
        reply: () =>
          json(200, {
            data: {
              resets_at: '2026-12-01T00:00:00Z',
              allowances: {
                voice_minutes: { limit: 100, used: 1.25, remaining: 98.75 },
                sessions: { limit: null, used: 3, remaining: null },
                calls: { limit: 10, used: 3, remaining: 7 },
              },
            },
          }),
      },
      {
        method: 'GET',
        path: '/api/v1/usage',
        reply: (s) =>
          json(200, {
            data: {
              from: s.query.get('from'),
              to: s.query.get('to'),
              group_by: s.query.get('group_by'),
              metrics: { ...zero, calls: 3, sessions: 3, voice_minutes: 1.25, tts_characters: 44 },
              groups: groups[s.query.get('group_by')!],
            },
          }),
      },
    ]);
    render(
      <MemoryRouter>
        <UsagePage />
      </MemoryRouter>,
    );
    await screen.findByText('7 left');
    expect(screen.getByText('3 of 10 used')).toBeTruthy();
    expect(screen.getByText('98.75 left')).toBeTruthy();
    const byProject = await screen.findByRole('list', { name: 'Calls by project' });
    // Sales used no calls: only Front desk has a bar (named once the projects are read).
    await waitFor(() =>
      expect(
        within(byProject)
          .getAllByRole('listitem')
          .map((li) => li.textContent),
      ).toEqual(['Front desk: 3']),
    );
    const metered = screen.getByRole('table', { name: 'What each provider metered' });
    expect(
      within(metered)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual([
      'ProviderUsedAmount',
      'genericVoice minutes1.25',
      'tts_vendor_1Text-to-speech characters44',
      'No providerCalls3',
      'Sessions3',
    ]);
    await user.selectOptions(screen.getByLabelText('Chart'), 'sessions');
    const sessions = await screen.findByRole('list', { name: 'Sessions by project' });
    expect(
      within(sessions)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Sales: 2', 'Front desk: 1']);
    const used = screen.getByRole('table', { name: 'What each project used' });
    expect(
      within(used)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['ProjectUsedAmount', 'Front deskCalls3', 'Sessions1', 'SalesSessions2']);
    // The totals mark the chosen metric; its figure per day is in the table beside the chart.
    expect(document.querySelector('.stat-current')?.textContent).toBe('Sessions3');
    const perDay = screen.getByRole('region', { name: 'Sessions per day' });
    expect(
      within(perDay)
        .getAllByRole('row', { hidden: true })
        .map((r) => r.textContent),
    ).toEqual(['DaySessions', '2026-11-010', '2026-11-023']);
    // A quick range asks for its days.
    await user.click(screen.getByRole('button', { name: 'Last 7 days' }));
    const week = presetRanges()[1]!;
    await waitFor(() =>
      expect(
        sent.some(
          (s) =>
            s.path === '/api/v1/usage' && s.query.get('from') === week.from && s.query.get('to') === week.to,
        ),
      ).toBe(true),
    );
    expect(screen.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');
  });
});
