import { describe, expect, it } from 'vitest';
import { referencedAgentIds } from './agent-refs.js';
import { REDACTED, isSecretVariable, redactVariables } from './secrets.js';
import { SYSTEM_VARIABLES, isSystemVariable } from './system-variables.js';

describe('referencedAgentIds', () => {
  it('lists agent ids once, in graph order', () => {
    const graph = {
      nodes: [
        { id: 'a', type: 'agent', config: { agent_id: 'ag_2' } },
        { id: 'b', type: 'speak', config: { agent_id: 'not_an_agent_node' } },
        { id: 'c', type: 'agent', config: { agent_id: 'ag_1' } },
        { id: 'd', type: 'agent', config: { agent_id: 'ag_2' } },
      ],
      edges: [],
    };
    expect(referencedAgentIds(graph)).toEqual(['ag_2', 'ag_1']);
  });

  it.each([
    null,
    42,
    'graph',
    [],
    {},
    { nodes: 'x' },
    { nodes: [null, 1, { type: 'agent' }, { type: 'agent', config: 5 }] },
    {
      nodes: [
        { type: 'agent', config: { agent_id: 7 } },
        { type: 'agent', config: { agent_id: '' } },
      ],
    },
  ])('returns [] for malformed input %j', (graph) => {
    expect(referencedAgentIds(graph)).toEqual([]);
  });
});

describe('secrets', () => {
  it('marks names starting with secret_', () => {
    expect(isSecretVariable('secret_crm_token')).toBe(true);
    expect(isSecretVariable('secret_')).toBe(true);
    expect(isSecretVariable('my_secret')).toBe(false);
    expect(isSecretVariable('Secret_x')).toBe(false);
    expect(redactVariables({ pin: '1234', secret_key: 'k', nested: { secret_x: 1 } })).toEqual({
      pin: '1234',
      secret_key: REDACTED,
      nested: { secret_x: 1 },
    });
  });
});

describe('system variables', () => {
  it('lists the documented names', () => {
    expect(SYSTEM_VARIABLES).toEqual([
      'caller',
      'callee',
      'call_id',
      'session_id',
      'execution_id',
      'channel',
      'workflow_id',
      'workflow_version',
      'project_id',
      'workspace_id',
      'started_at',
    ]);
    expect(isSystemVariable('caller')).toBe(true);
    expect(isSystemVariable('pin')).toBe(false);
  });
});
