import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../auth/session-key';
import { fakeApi, json } from '../../test/fetch';
import { DispatchTestPanel } from './DispatchTestPanel';

const names: Record<string, string> = { w1: 'Night line', w2: 'Front desk' };

describe('DispatchTestPanel', () => {
  it("tests the caller against the saved rules and shows the winner, then each rule's verdict", async () => {
    const user = userEvent.setup({ delay: null });
    storeKey('pk_live_componenttestkey');
    let answer = {
      winner: { index: 1, workflow_id: 'w2' },
      rules: [
        { index: 0, priority: 10, workflow_id: 'w1', matched: false, reason: 'outside 22:00–06:00' },
        { index: 1, priority: 20, workflow_id: 'w2', matched: true, reason: null },
      ],
    };
    const { sent } = fakeApi([
      {
        method: 'POST',
        path: '/api/v1/phone-numbers/n1/dispatch-test',
        reply: () => json(200, { data: answer }),
      },
    ]);
    const results: unknown[] = [];
    render(
      <DispatchTestPanel
        numberId="n1"
        workflowName={(id) => names[id] ?? id}
        dirty={false}
        onResult={(r) => results.push(r)}
      />,
    );
    await user.type(screen.getByLabelText('Caller'), '+4930123456');
    await user.click(screen.getByRole('button', { name: 'Test' }));
    expect(await screen.findByRole('heading', { name: 'Rule 2 answers: Front desk' })).toBeTruthy();
    expect(screen.getByText(/Rule 1 \(priority 10\) → Night line/).textContent).toContain(
      '— outside 22:00–06:00',
    );
    expect(screen.getByText('Rule 2 (priority 20) → Front desk')).toBeTruthy();
    expect(sent[0]!.body).toEqual({ caller: '+4930123456' });
    expect(results).toEqual([answer]);

    answer = { winner: null, rules: [] } as unknown as typeof answer;
    await user.click(screen.getByRole('button', { name: 'Test' }));
    expect(
      await screen.findByRole('heading', { name: 'No rule matches: the call would be refused (SIP 480).' }),
    ).toBeTruthy();
  });
});
