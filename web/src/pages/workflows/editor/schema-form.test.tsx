// The configuration forms generated from the served node schemas: each type's fields render with
// their labels, typed values reach the config with the right JSON types (numbers, booleans,
// lists, maps, tagged unions), clearing an optional field removes its key, and the validator's
// findings show beside the fields they name.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { workflowGraphJsonSchema } from '../../../../../src/workflow/graph-schema';
import type { Finding } from './graph';
import { kindOf, SchemaForm, type JsonSchema } from './schema-form';

const defs = (workflowGraphJsonSchema as { $defs: Record<string, JsonSchema> }).$defs;

function Harness({
  type,
  initial = {},
  findings = [],
  seen,
}: {
  type: string;
  initial?: Record<string, unknown>;
  findings?: Finding[];
  seen: Array<Record<string, unknown>>;
}) {
  const [value, setValue] = useState(initial);
  return (
    <SchemaForm
      schema={defs[`${type}_config`]!}
      value={value}
      onChange={(v) => {
        seen.push(v);
        setValue(v);
      }}
      ctx={{ nodeId: 'n1', findings, pickers: { agent_id: [{ value: 'agt_1', label: 'Support agent' }] } }}
    />
  );
}

const last = (seen: Array<Record<string, unknown>>) => seen.at(-1)!;

describe('schema forms', () => {
  it('has a widget for every field of every node type', () => {
    for (const [name, schema] of Object.entries(defs)) {
      if (!name.endsWith('_config')) continue;
      for (const [key, field] of Object.entries(schema.properties ?? {})) {
        // A webhook body is free-form (text, or JSON of any shape): the one JSON box.
        if (name === 'webhook_config' && key === 'body') continue;
        expect(kindOf(field), `${name}.${key}`).not.toBe('json');
      }
    }
  });

  it('collect DTMF: numbers as numbers, a cleared optional field removed, the finding beside its field', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const findings = [
      { node_id: 'n1', field: 'save_to_variable', message: '`save_to_variable` is required.' },
    ];
    render(<Harness type="dtmf" initial={{ prompt: 'PIN?' }} findings={findings} seen={seen} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Num digits'), '4');
    expect(last(seen)).toEqual({ prompt: 'PIN?', num_digits: 4 });
    await user.clear(screen.getByLabelText('Prompt'));
    expect(last(seen)).toEqual({ num_digits: 4 });
    const variable = screen.getByLabelText(/Save to variable/);
    expect(variable.getAttribute('aria-invalid')).toBe('true');
    expect(
      document.getElementById(variable.getAttribute('aria-describedby')!.split(' ').at(-1)!)?.textContent,
    ).toBe('Required.');
    expect(screen.getByLabelText('Timeout seconds').getAttribute('aria-invalid')).toBeNull();
  });

  it('agent: the agent picked from the project, exits added as a list with their own findings', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const findings = [{ node_id: 'n1', field: 'exits[0].handle', message: 'Handle is reserved.' }];
    render(<Harness type="agent" findings={findings} seen={seen} initial={{ exits: ['default'] }} />);
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText(/Agent id/), 'agt_1');
    expect(last(seen).agent_id).toBe('agt_1');
    // A bare-name exit shows as an object's handle field, with the finding on it.
    const handle = screen.getAllByLabelText(/^Handle/)[0]!;
    expect((handle as HTMLInputElement).value).toBe('default');
    expect(handle.getAttribute('aria-invalid')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Add exit' }));
    await user.type(screen.getAllByLabelText(/^Handle/)[1]!, 'billing');
    // The untouched bare name stays as written; the new exit is an object.
    expect(last(seen).exits).toEqual(['default', { handle: 'billing' }]);
    await user.click(screen.getByRole('button', { name: 'Remove exit 1' }));
    expect(last(seen).exits).toEqual([{ handle: 'billing' }]);
    await user.selectOptions(screen.getByLabelText('History'), 'reset');
    expect(last(seen).history).toBe('reset');
  });

  it('set variables: rows become a map, values typed as JSON scalars where they read as one', async () => {
    const seen: Array<Record<string, unknown>> = [];
    render(<Harness type="set_variables" initial={{ variables: {} }} seen={seen} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Add to variables' }));
    await user.type(screen.getByLabelText('Variables 1 name'), 'tries');
    await user.type(screen.getByLabelText('Variables 1 value'), '3');
    await user.click(screen.getByRole('button', { name: 'Add to variables' }));
    await user.type(screen.getByLabelText('Variables 2 name'), 'greeting');
    await user.type(screen.getByLabelText('Variables 2 value'), 'Hi {{{{name}}');
    expect(last(seen)).toEqual({ variables: { tries: 3, greeting: 'Hi {{name}}' } });
  });

  it('webhook: a method choice, a tagged auth union, headers as strings and a JSON body', async () => {
    const seen: Array<Record<string, unknown>> = [];
    render(<Harness type="webhook" initial={{ url: 'https://api.example.com' }} seen={seen} />);
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Method'), 'PUT');
    await user.selectOptions(screen.getByLabelText('Type'), 'bearer');
    await user.type(screen.getByLabelText('Secret variable'), 'api_token');
    expect(last(seen).auth).toEqual({ type: 'bearer', secret_variable: 'api_token' });
    await user.click(screen.getByRole('button', { name: 'Add to headers' }));
    await user.type(screen.getByLabelText('Headers 1 name'), 'X-Id');
    await user.type(screen.getByLabelText('Headers 1 value'), '42');
    expect(last(seen).headers).toEqual({ 'X-Id': '42' });
    await user.type(screen.getByLabelText('Body'), '{{"pin": "{{{{pin}}"}');
    expect(last(seen).body).toEqual({ pin: '{{pin}}' });
    expect(last(seen).method).toBe('PUT');
  });

  it('speak: a switch for barge-in that shows its default', async () => {
    const seen: Array<Record<string, unknown>> = [];
    render(<Harness type="speak" initial={{ text: 'Hello' }} seen={seen} />);
    const box = screen.getByLabelText('Barge in') as HTMLInputElement;
    expect(box.checked).toBe(true);
    await userEvent.setup().click(box);
    expect(last(seen)).toEqual({ text: 'Hello', barge_in: false });
  });

  it('says so when a type has nothing to configure', () => {
    render(<Harness type="end" seen={[]} />);
    expect(screen.getByText('Nothing to configure.')).toBeTruthy();
  });
});
