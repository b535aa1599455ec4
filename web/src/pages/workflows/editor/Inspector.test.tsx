import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { toFlow, type Finding } from './graph';
import { Inspector } from './Inspector';

const { nodes, edges } = toFlow({
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'menu', type: 'dtmf', config: {} },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [{ source: 'menu', source_handle: 'success', target: 'bye' }],
} as never);

function renderStep(id: string, readOnly = false, findings: Finding[] = []) {
  const connected: [string, string, string | null][] = [];
  render(
    <Inspector
      node={nodes.find((n) => n.id === id)}
      nodes={nodes}
      edges={edges}
      schemas={null}
      findings={findings}
      pickers={{} as never}
      readOnly={readOnly}
      onConfig={() => {}}
      onConnect={(source, handle, target) => connected.push([source, handle, target])}
      onDelete={() => {}}
      onSelect={() => {}}
      onRename={() => null}
    />,
  );
  return connected;
}

describe('Inspector', () => {
  it("offers a select per exit, naming where it leads, and connects the step's exit to the choice", async () => {
    const user = userEvent.setup({ delay: null });
    const connected = renderStep('menu');
    const exits = screen.getByRole('group', { name: 'Exits' });
    const success = within(exits).getByLabelText<HTMLSelectElement>('When success, go to');
    const timeout = within(exits).getByLabelText<HTMLSelectElement>('When timeout, go to');
    expect(success.value).toBe('bye');
    expect(timeout.value).toBe('');
    expect([...timeout.options].map((o) => o.textContent)).toEqual(['(nowhere)', 'bye (Hang up)']);
    await user.selectOptions(timeout, 'bye');
    await user.selectOptions(success, '');
    expect(connected).toEqual([
      ['menu', 'timeout', 'bye'],
      ['menu', 'success', null],
    ]);
  });

  it('keeps the exits of a version viewed read-only from being changed', () => {
    renderStep('start', true);
    expect(screen.getByRole<HTMLFieldSetElement>('group', { name: 'Exits' }).disabled).toBe(true);
    expect(screen.getByLabelText('When next, go to')).toBeTruthy();
  });

  it("lists a step's findings naming the field once, and a finding on the whole step as it came", () => {
    renderStep('menu', false, [
      {
        node_id: 'menu',
        field: 'save_to_variable',
        message: '`save_to_variable` is required.',
      },
      { node_id: 'menu', field: '', message: 'Step is not reachable from start.', severity: 'warning' },
    ]);
    const items = within(screen.getByRole('list', { name: 'Findings on this step' })).getAllByRole(
      'listitem',
    );
    expect(items.map((li) => li.textContent)).toEqual([
      'Error: save_to_variable: Required.',
      'Warning: Step is not reachable from start.',
    ]);
  });
});
