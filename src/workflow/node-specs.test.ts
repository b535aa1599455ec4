import { describe, expect, it } from 'vitest';
import { NODE_TYPES } from './graph.types.js';
import type { GraphNode } from './graph.types.js';
import {
  NODE_SPECS,
  nodeHandles,
  nodeVariableReads,
  nodeVariableWrites,
  resolveHandle,
  variablesRead,
  variablesWritten,
} from './node-specs.js';

const node = (type: GraphNode['type'], config: Record<string, unknown> = {}): GraphNode => ({
  id: 'n',
  type,
  config,
});

describe('node specs', () => {
  it('covers every node type', () => {
    expect(Object.keys(NODE_SPECS).sort()).toEqual([...NODE_TYPES].sort());
  });

  it('gives each type its handles and default handle', () => {
    const table = Object.fromEntries(
      NODE_TYPES.map((type) => [type, [NODE_SPECS[type].defaultHandle, ...NODE_SPECS[type].handles]]),
    );
    expect(table).toEqual({
      start: ['default', 'default'],
      speak: ['default', 'default'],
      agent: ['default', 'default'],
      dtmf: ['success', 'success', 'timeout'],
      condition: ['default', 'default'],
      set_variables: ['default', 'default'],
      transform: ['default', 'default'],
      webhook: ['success', 'success', 'error'],
      dial: ['answered', 'answered', 'no_answer', 'busy', 'failed'],
      transfer_to_human: ['failed', 'failed'],
      transfer_call: ['failed', 'failed'],
      end: [null],
      hangup: [null],
    });
    expect(NODE_TYPES.filter((type) => NODE_SPECS[type].telephony)).toEqual([
      'dial',
      'transfer_to_human',
      'transfer_call',
    ]);
    expect(NODE_TYPES.filter((type) => NODE_SPECS[type].terminal)).toEqual(['end', 'hangup']);
  });

  it('adds condition branches and agent exits as handles', () => {
    const condition = node('condition', {
      branches: [{ handle: 'vip', expression: 'x' }, { handle: 'new', expression: 'y' }, { nope: 1 }, 'junk'],
    });
    expect(nodeHandles(condition)).toEqual(['default', 'vip', 'new']);
    const agent = node('agent', { exits: [{ handle: 'billing', description: 'b' }] });
    expect(nodeHandles(agent)).toEqual(['default', 'billing']);
    expect(nodeHandles(node('agent', { exits: 'bad' }))).toEqual(['default']);
  });

  it('resolves absent and `default` source handles to the default handle', () => {
    expect(resolveHandle(node('dtmf'), undefined)).toBe('success');
    expect(resolveHandle(node('dtmf'), 'default')).toBe('success');
    expect(resolveHandle(node('dtmf'), 'timeout')).toBe('timeout');
    expect(resolveHandle(node('dtmf'), 'nope')).toBe(null);
    expect(resolveHandle(node('end'), undefined)).toBe(null);
    expect(resolveHandle(node('transfer_call'), undefined)).toBe('failed');
    expect(resolveHandle(node('condition', { branches: [{ handle: 'vip', expression: 'x' }] }), 'vip')).toBe(
      'vip',
    );
  });
});

describe('variables read and written', () => {
  it('reads template, expression and HMAC secret variables with their fields', () => {
    const webhook = node('webhook', {
      url: 'https://x.example/{{account.id}}',
      headers: { 'X-Caller': '{{caller}}', 'Odd.Key': '{{a}}' },
      body: { caller: '{{caller}}', items: ['{{payload}}', 3] },
      auth: { type: 'hmac', secret_variable: 'secret_key' },
      response_mapping: { tier: '$.tier', first: '$.items[0]' },
      save_response_to: 'crm',
    });
    expect(nodeVariableReads(webhook)).toEqual([
      { field: 'url', value: 'account' },
      { field: 'headers.X-Caller', value: 'caller' },
      { field: 'headers["Odd.Key"]', value: 'a' },
      { field: 'body.caller', value: 'caller' },
      { field: 'body.items[0]', value: 'payload' },
      { field: 'auth.secret_variable', value: 'secret_key' },
    ]);
    expect(nodeVariableWrites(webhook)).toEqual([
      { field: 'response_mapping.tier', value: 'tier' },
      { field: 'response_mapping.first', value: 'first' },
      { field: 'save_response_to', value: 'crm' },
      { field: '', value: 'webhook_status' },
      { field: '', value: 'webhook_error' },
    ]);
    expect(variablesWritten(node('transfer_call', { destination: 'tel:+14155550100' }))).toEqual([
      'transfer_failure_reason',
    ]);
    const condition = node('condition', { branches: [{ handle: 'a', expression: 'x == 1 && y.z in list' }] });
    expect(variablesRead(condition)).toEqual(['x', 'y', 'list']);
  });

  it('lists what each writing node writes', () => {
    expect(variablesWritten(node('dtmf', { save_to_variable: 'pin' }))).toEqual(['pin']);
    expect(variablesWritten(node('transform', { save_to_variable: 'n', input: '{{said}}' }))).toEqual(['n']);
    expect(variablesWritten(node('set_variables', { variables: { a: '1', b: '{{a}}' } }))).toEqual([
      'a',
      'b',
    ]);
    expect(variablesRead(node('set_variables', { variables: { a: '1', b: '{{a}}' } }))).toEqual(['a']);
    expect(variablesWritten(node('agent', { outputs: [{ variable: 'reason', description: 'd' }] }))).toEqual([
      'reason',
    ]);
    expect(variablesWritten(node('dial', { to: 'tel:{{n}}', save_call_id_to: 'leg' }))).toEqual(['leg']);
    expect(variablesRead(node('dial', { to: 'tel:{{n}}', from: '{{caller}}' }))).toEqual(['n', 'caller']);
    expect(variablesWritten(node('speak', { text: '{{x}}' }))).toEqual([]);
  });

  it('tolerates malformed configs', () => {
    const broken = { id: 'n', type: 'webhook', config: null } as unknown as GraphNode;
    expect(nodeVariableReads(broken)).toEqual([]);
    expect(nodeVariableWrites(node('set_variables', { variables: ['a'] }))).toEqual([]);
    expect(variablesRead(node('condition', { branches: [{ handle: 'a', expression: 'x ==' }] }))).toEqual([]);
  });
});
