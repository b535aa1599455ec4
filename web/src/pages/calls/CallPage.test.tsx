import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { CallPage } from './CallPage';

const base = {
  direction: 'inbound',
  from: '+4930123456',
  to: '+14155550100',
  project_id: 'p1',
  workflow_id: 'w1',
  workflow_version: 2,
  metadata: {},
  recording_url: null,
  recording_error: null,
  answered_by: null,
};
const theCall = {
  ...base,
  id: 'c1',
  status: 'completed',
  session_id: 's1',
  duration_seconds: 14,
  hangup_reason: 'caller_hangup',
  created_at: '2026-11-02T10:00:00Z',
  started_at: '2026-11-02T10:00:01Z',
  ended_at: '2026-11-02T10:00:15Z',
  parent_call_id: null,
};
const leg = {
  ...base,
  id: 'leg1',
  direction: 'outbound',
  from: '+14155550100',
  to: '+14155550199',
  status: 'completed',
  session_id: null,
  duration_seconds: 6,
  hangup_reason: 'callee_hangup',
  created_at: '2026-11-02T10:00:06Z',
  started_at: '2026-11-02T10:00:08Z',
  ended_at: '2026-11-02T10:00:14Z',
  parent_call_id: 'c1',
};
const step = { handle: null, keys: null, transfer: null, error: null, exited_at: null };

describe('CallPage', () => {
  it('draws the timeline from the call, its steps with their keys, its dialled leg and its webhook events', async () => {
    storeKey('pk_live_componenttestkey');
    const { sent } = fakeApi([
      {
        method: 'GET',
        path: '/api/v1/projects',
        reply: () => json(200, page([{ id: 'p1', name: 'Front desk' }])),
      },
      {
        method: 'GET',
        path: '/api/v1/workflows/w1',
        reply: () => json(200, { data: { id: 'w1', name: 'Menu' } }),
      },
      {
        method: 'GET',
        path: '/api/v1/workflows/w1/versions/2',
        reply: () =>
          json(200, {
            data: {
              workflow_id: 'w1',
              version: 2,
              graph: {
                nodes: [
                  { id: 'start', type: 'start' },
                  { id: 'menu', type: 'dtmf', config: { prompt: 'Press 1 for sales' } },
                  { id: 'sales', type: 'dial', config: { destination: '+14155550199' } },
                ],
                edges: [],
              },
            },
          }),
      },
      { method: 'GET', path: '/api/v1/calls/c1', reply: () => json(200, { data: theCall }) },
      {
        method: 'GET',
        path: '/api/v1/calls',
        reply: (s) => json(200, page(s.query.get('parent_call_id') === 'c1' ? [leg] : [])),
      },
      { method: 'GET', path: '/api/v1/conversations', reply: () => json(200, page([{ id: 'conv1' }])) },
      {
        method: 'GET',
        path: '/api/v1/conversations/conv1',
        reply: () =>
          json(200, {
            data: {
              id: 'conv1',
              messages: [],
              steps: [
                {
                  ...step,
                  node_id: 'start',
                  node_type: 'start',
                  entered_at: '2026-11-02T10:00:01Z',
                  exited_at: '2026-11-02T10:00:01Z',
                  handle: 'default',
                },
                {
                  ...step,
                  node_id: 'menu',
                  node_type: 'dtmf',
                  entered_at: '2026-11-02T10:00:01Z',
                  exited_at: '2026-11-02T10:00:05Z',
                  handle: 'success',
                  keys: '1#',
                },
                {
                  ...step,
                  node_id: 'sales',
                  node_type: 'dial',
                  entered_at: '2026-11-02T10:00:05Z',
                  exited_at: '2026-11-02T10:00:15Z',
                },
              ],
            },
          }),
      },
      {
        method: 'GET',
        path: '/api/v1/webhook-endpoints',
        reply: () => json(200, page([{ id: 'e1' }])),
      },
      {
        method: 'GET',
        path: '/api/v1/webhook-endpoints/e1/deliveries',
        reply: () =>
          json(
            200,
            page([
              {
                id: 'd2',
                endpoint_id: 'e1',
                status: 'succeeded',
                attempt_count: 1,
                last_status_code: 200,
                last_error: null,
                event: { id: 'ev2', type: 'call.ended', created_at: '2026-11-02T10:00:15Z' },
                attempts: [{ request: { body: '{"data":{"id":"c1"}}' } }],
              },
              {
                id: 'd1',
                endpoint_id: 'e1',
                status: 'succeeded',
                attempt_count: 1,
                last_status_code: 200,
                last_error: null,
                event: { id: 'ev1', type: 'call.started', created_at: '2026-11-02T10:00:01Z' },
                attempts: [{ request: { body: '{"data":{"id":"c1"}}' } }],
              },
              // The dialled leg's own event, naming this call as its parent: on the leg's page only.
              {
                id: 'd3',
                endpoint_id: 'e1',
                status: 'pending',
                attempt_count: 1,
                last_status_code: 500,
                last_error: null,
                event: { id: 'ev3', type: 'call.started', created_at: '2026-11-02T10:00:06Z' },
                attempts: [
                  {
                    request: { body: '{"data":{"id":"leg1","parent_call_id":"c1","session_id":"s1"}}' },
                  },
                ],
              },
            ]),
          ),
      },
    ]);
    render(
      <MemoryRouter initialEntries={['/calls/c1']}>
        <Routes>
          <Route path="/calls/:id" element={<CallPage />} />
        </Routes>
      </MemoryRouter>,
    );
    const timeline = await screen.findByRole('list', { name: 'Call timeline' });
    await within(timeline).findByText('Dialled +14155550199');
    await within(timeline).findByText('Webhook call.ended');
    await within(timeline).findByText('“Press 1 for sales”');
    const entries = within(timeline)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(entries).toEqual([
      expect.stringMatching(/^\+0:00.*Call arrived/),
      expect.stringMatching(/^\+0:01.*Answered/),
      expect.stringMatching(/Webhook call\.started.*Succeeded/),
      expect.stringMatching(/Workflow started/),
      expect.stringMatching(/^\+0:01.*Collect DTMFmenu.*Pressed 1#.*Left by success after 4 s/),
      expect.stringMatching(/^\+0:05.*Dialsales.*\+14155550199.*The call ended here, after 10 s/),
      expect.stringMatching(/^\+0:06.*Dialled \+14155550199.*Completed.*callee hangup.*6 s long/),
      expect.stringMatching(/^\+0:15.*Ended: completed.*caller hangup.*14 s long/),
      expect.stringMatching(/Webhook call\.ended/),
    ]);
    // The leg leads to its own call page; the dial legs were asked for by this call's id.
    expect(
      within(timeline)
        .getByRole('link', { name: /Dialled \+14155550199/ })
        .getAttribute('href'),
    ).toBe('/calls/leg1');
    expect(sent.some((s) => s.path === '/api/v1/calls' && s.query.get('parent_call_id') === 'c1')).toBe(true);
    // Status and hang-up reason lead the page, before the timeline.
    const heading = screen.getByRole('heading', { level: 1 });
    expect(heading.compareDocumentPosition(timeline) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByText('hang-up reason: caller hangup')).toBeTruthy();
    // Beside it: the details, and the deliveries about the call, each leading to its endpoint.
    const details = screen.getByRole('region', { name: 'Details' });
    await within(details).findByText('Front desk');
    expect(await within(details).findByRole('link', { name: 'Menu · version 2' })).toBeTruthy();
    expect(within(details).getByRole('link', { name: 's1' }).getAttribute('href')).toBe('/sessions/s1');
    const events = within(screen.getByRole('region', { name: 'Webhook events' })).getByRole('table');
    expect(
      within(events)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual([
      'EventDeliveryLast answer',
      'call.endedSucceeded1 attempt200',
      'call.startedSucceeded1 attempt200',
    ]);
  });

  it('cancels an outbound call still ringing, and names the call it was dialled from', async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    let ringing = {
      ...leg,
      status: 'ringing',
      duration_seconds: null,
      hangup_reason: null,
      ended_at: null,
      workflow_id: null,
      workflow_version: null,
      metadata: { ticket: 42 },
    };
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/projects', reply: () => json(200, page([])) },
      { method: 'GET', path: '/api/v1/calls/leg1', reply: () => json(200, { data: ringing }) },
      { method: 'GET', path: '/api/v1/calls', reply: () => json(200, page([])) },
      { method: 'GET', path: '/api/v1/webhook-endpoints', reply: () => json(200, page([])) },
      {
        method: 'DELETE',
        path: '/api/v1/calls/leg1',
        reply: () => ((ringing = { ...ringing, status: 'cancelled' }), json(204, null)),
      },
    ]);
    render(
      <MemoryRouter initialEntries={['/calls/leg1']}>
        <Routes>
          <Route path="/calls/:id" element={<CallPage />} />
        </Routes>
      </MemoryRouter>,
    );
    const details = await screen.findByRole('region', { name: 'Details' });
    expect(within(details).getByRole('link', { name: 'call c1' }).getAttribute('href')).toBe('/calls/c1');
    expect(within(details).getByText('{"ticket":42}')).toBeTruthy();
    expect(
      await screen.findByText('No webhook endpoint of this project received an event about this call.'),
    ).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Cancel call' }));
    await user.click(screen.getByRole('button', { name: 'Cancel call' }));
    expect(await screen.findByText('Cancelled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel call' })).toBeNull();
    expect(sent.filter((s) => s.method === 'DELETE').map((s) => s.path)).toEqual(['/api/v1/calls/leg1']);
  });
});
