import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json, page } from '../../test/fetch';
import { AgentPage } from './AgentPage';

describe('AgentPage', () => {
  it('picks the model from the provider’s list, or takes another model id typed in', async () => {
    storeKey('pk_live_componenttestkey');
    const project = { id: 'p1', name: 'Support', created_at: '2026-11-01T00:00:00Z' };
    const { sent } = fakeApi([
      { method: 'GET', path: '/api/v1/projects', reply: () => json(200, page([project])) },
      {
        method: 'POST',
        path: '/api/v1/agents',
        reply: () => json(422, { message: 'stop here', errors: {} }),
      },
    ]);
    render(
      <MemoryRouter initialEntries={['/agents/new']}>
        <Routes>
          <Route path="/agents/:id" element={<AgentPage />} />
        </Routes>
      </MemoryRouter>,
    );
    const user = userEvent.setup({ delay: null });
    await user.selectOptions(await screen.findByLabelText('Provider'), 'llm_vendor_2');
    const model = screen.getByLabelText('Model');
    expect([...(model as HTMLSelectElement).options].map((o) => o.value)).toContain('claude-sonnet-4-0');
    await user.selectOptions(model, 'claude-sonnet-4-0');
    // Another vendor: its own list, and the old vendor's model is replaced by the new one's first.
    await user.selectOptions(screen.getByLabelText('Provider'), 'llm_vendor_3');
    expect((screen.getByLabelText('Model') as HTMLSelectElement).value).toBe('gemini-2.0-flash');
    await user.selectOptions(screen.getByLabelText('Model'), '__other__');
    await user.clear(screen.getByLabelText('Model id'));
    await user.type(screen.getByLabelText('Model id'), 'gemini-exp-1206');
    await user.type(screen.getByLabelText('Name'), 'Front desk');
    await user.click(screen.getByRole('button', { name: /Create/ }));
    await screen.findAllByText(/fix the highlighted fields|stop here/);
    const post = sent.find((s) => s.method === 'POST');
    expect(post?.body).toMatchObject({ llm_provider: 'llm_vendor_3', llm_model: 'gemini-exp-1206' });
  });
});
