import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../../auth/session-key';
import { fakeApi, json } from '../../../test/fetch';
import { SimulatePanel, type SimulationResult } from './SimulatePanel';

describe('SimulatePanel', () => {
  it('saves, runs the inputs, and shows how the run ended, its messages and its variables; Clear hides them', async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    const result: SimulationResult = {
      status: 'completed',
      path: ['start', 'menu', 'bye'],
      variables: { choice: '1' },
      messages: [
        { role: 'assistant', content: 'Press 1 for sales.' },
        { role: 'user', content: 'dtmf:1' },
      ],
    };
    const { sent } = fakeApi([
      { method: 'POST', path: '/api/v1/workflows/w1/simulate', reply: () => json(200, { data: result }) },
    ]);
    const order: string[] = [];
    const shown: (SimulationResult | null)[] = [];
    render(
      <SimulatePanel
        workflowId="w1"
        beforeRun={async () => void order.push('saved')}
        onResult={(r) => shown.push(r)}
      />,
    );
    await user.type(screen.getByLabelText('Caller inputs, one per line'), '#1');
    await user.click(screen.getByRole('button', { name: 'Run simulation' }));
    const outcome = await screen.findByText(/^Finished/);
    expect(outcome.textContent).toBe('Finished completed after 3 steps: start → menu → bye');
    expect(order).toEqual(['saved']);
    expect(sent[0]!.body).toEqual({ variables: {}, inputs: [{ dtmf: '1' }] });
    const messages = screen.getByRole('list', { name: 'Messages' });
    expect(
      within(messages)
        .getAllByRole('listitem')
        .map((li) => li.className),
    ).toEqual(['turn turn-assistant', 'turn turn-user']);
    expect(within(messages).getByText('Workflow')).toBeTruthy();
    expect(screen.getByText('Variables at the end (1)')).toBeTruthy();
    expect(screen.getByText('"1"')).toBeTruthy();
    expect(shown).toEqual([result]);

    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.queryByText(/^Finished/)).toBeNull();
    expect(shown).toEqual([result, null]);
  });
});
