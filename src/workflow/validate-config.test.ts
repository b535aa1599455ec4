// Per-type config rules of the conversation and data nodes (one node per graph, every handle wired).
import { describe, expect, it } from 'vitest';
import { validateGraph } from './validate.js';
import type { ValidationContext } from './validate.js';
import { singleNodeGraph } from './testing/single-node-graph.js';
import type { GraphNode } from './graph.types.js';

function check(type: GraphNode['type'], config: Record<string, unknown>, context: ValidationContext = {}) {
  const { errors, warnings } = validateGraph(
    singleNodeGraph(type, config, { inputs: ['said', 'tier'] }),
    context,
  );
  return { errors, warnings };
}
const err = (field: string, message: string) => ({ node_id: 'n', field, message });

describe('dtmf', () => {
  const ok = {
    prompt: 'Enter your PIN',
    num_digits: 4,
    terminator: '#',
    timeout_seconds: 5,
    save_to_variable: 'pin',
  };

  it('accepts the documented config', () => {
    expect(check('dtmf', ok)).toEqual({ errors: [], warnings: [] });
  });

  it('requires save_to_variable', () => {
    const { save_to_variable: _omit, ...rest } = ok;
    expect(check('dtmf', rest).errors).toEqual([
      err('save_to_variable', '`save_to_variable` is required (the variable to save to).'),
    ]);
    expect(check('dtmf', { ...ok, save_to_variable: '' }).errors).toEqual([
      err('save_to_variable', '`save_to_variable` must not be empty (the variable to save to).'),
    ]);
    expect(check('dtmf', { ...ok, save_to_variable: 'my pin' }).errors).toEqual([
      err(
        'save_to_variable',
        "'my pin' is not a valid variable name for `save_to_variable`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
    ]);
  });

  it('needs num_digits of at least 1, a positive timeout and a one-key terminator', () => {
    expect(
      check('dtmf', { ...ok, num_digits: 0, timeout_seconds: 0, terminator: 'hash key' }).errors,
    ).toEqual([
      err('num_digits', '`num_digits` must be a whole number of at least 1.'),
      err(
        'terminator',
        "`terminator` must be one key: '#' (or 'pound'), '*' (or 'star') or a digit ('' for none).",
      ),
      err('timeout_seconds', '`timeout_seconds` must be a positive number of seconds.'),
    ]);
    expect(check('dtmf', { ...ok, num_digits: 2.5, timeout_seconds: -3 }).errors).toEqual([
      err('num_digits', '`num_digits` must be a whole number of at least 1.'),
      err('timeout_seconds', '`timeout_seconds` must be a positive number of seconds.'),
    ]);
    expect(check('dtmf', { ...ok, num_digits: 65, timeout_seconds: '5' }).errors).toEqual([
      err('num_digits', '`num_digits` must be a whole number from 1 to 64.'),
      err('timeout_seconds', '`timeout_seconds` must be a positive number of seconds.'),
    ]);
    expect(check('dtmf', { ...ok, timeout_seconds: 0.5, terminator: '*' }).errors).toEqual([]);
    // The spec names the key ("e.g. pound"): the names are accepted too.
    expect(check('dtmf', { ...ok, terminator: 'pound' }).errors).toEqual([]);
    expect(check('dtmf', { ...ok, terminator: 'star' }).errors).toEqual([]);
    expect(check('dtmf', { ...ok, terminator: 'Pound' }).errors).toHaveLength(1);
  });

  it('warns when collection can only end by timeout', () => {
    expect(check('dtmf', { save_to_variable: 'pin', terminator: '' })).toEqual({
      errors: [],
      warnings: [
        err('terminator', 'With no terminator and no `num_digits`, collection always ends by `timeout`.'),
      ],
    });
  });
});

describe('speak', () => {
  it('needs text and a boolean barge_in', () => {
    expect(check('speak', { text: 'Hi', barge_in: false })).toEqual({ errors: [], warnings: [] });
    expect(check('speak', { barge_in: 'yes' }).errors).toEqual([
      err('text', '`text` is required (what to say).'),
      err('barge_in', '`barge_in` must be true or false.'),
    ]);
    expect(check('speak', { text: 5 }).errors).toEqual([
      err('text', '`text` must be a string (what to say).'),
    ]);
  });
});

describe('agent', () => {
  const ok = {
    agent_id: 'agt_1',
    exits: [{ handle: 'billing', description: 'The caller asks about a bill' }],
    outputs: [{ variable: 'reason', description: 'Why the caller called' }],
  };

  it('checks agent_id against the project agents only when they are given', () => {
    expect(check('agent', ok)).toEqual({ errors: [], warnings: [] });
    expect(check('agent', ok, { agentIds: new Set(['agt_1']) }).errors).toEqual([]);
    expect(check('agent', ok, { agentIds: new Set(['agt_2']) }).errors).toEqual([
      err('agent_id', "No agent 'agt_1' in this project."),
    ]);
    expect(check('agent', {}, { agentIds: new Set() }).errors).toEqual([
      err('agent_id', '`agent_id` is required (an agent of this project).'),
    ]);
  });

  it('checks exits, outputs, history, max_turns and the engine extras', () => {
    const result = check('agent', {
      agent_id: 'agt_1',
      history: 'forget',
      max_turns: 0,
      max_tool_rounds: 0,
      silence_timeout_seconds: -1,
      exits: [
        { handle: 'billing', description: 'bills' },
        { handle: 'billing', description: 'again' },
        { handle: 'default', description: 'reserved' },
        { handle: 'Bad-Name', description: 'x' },
        { handle: 'sales' },
        42,
        'support',
        'Bad',
      ],
      outputs: [{ variable: '1x', description: 'd' }, { variable: 'ok' }, null],
    });
    expect(result.errors).toEqual([
      err('history', "`history` must be 'append' or 'reset'."),
      err('max_turns', '`max_turns` must be a whole number from 1 to 1000.'),
      err('max_tool_rounds', '`max_tool_rounds` must be a whole number from 1 to 50.'),
      err('silence_timeout_seconds', '`silence_timeout_seconds` must be a positive number of seconds.'),
      err('exits[1].handle', "Handle 'billing' is already used by exits[0]."),
      err('exits[2].handle', "'default' is reserved for the node's default handle."),
      err(
        'exits[3].handle',
        'A handle name is lower-case letters, digits and _, starting with a letter (at most 64).',
      ),
      err('exits[5]', 'Each entry must be an object with `handle` and `description`.'),
      err(
        'exits[7]',
        'A handle name is lower-case letters, digits and _, starting with a letter (at most 64).',
      ),
      err(
        'outputs[0].variable',
        "'1x' is not a valid variable name for `outputs[0].variable`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
      err('outputs[2]', 'Each output must be {"variable", "description"}.'),
    ]);
    expect(result.warnings).toEqual([
      err('exits[4].description', 'No description: the model is told only the handle name of this exit.'),
      err('exits[6]', 'No description: the model is told only the handle name of this exit.'),
      err('exits[7]', 'No description: the model is told only the handle name of this exit.'),
      err('outputs[1].description', 'No description: the model is told only the variable name.'),
    ]);
  });
});

describe('condition', () => {
  it('compiles every branch expression and reports the position', () => {
    const result = check('condition', {
      branches: [
        { handle: 'vip', expression: "tier == 'gold'" },
        { handle: 'bad', expression: "tier = 'gold'" },
        { handle: 'empty', expression: '' },
      ],
    });
    expect(result.errors).toEqual([
      err(
        'branches[1].expression',
        'Invalid expression: Unexpected character "=" (use \'==\' to compare) at position 5.',
      ),
      err('branches[2].expression', 'The branch needs an `expression`.'),
    ]);
  });

  it('requires branches and warns when there are none', () => {
    expect(check('condition', {}).errors).toEqual([err('branches', '`branches` is required.')]);
    expect(check('condition', { branches: [] })).toEqual({
      errors: [],
      warnings: [err('branches', 'No branches: the node always leaves by its default handle.')],
    });
  });
});

describe('set_variables', () => {
  it('needs a map of valid names to template strings or scalars', () => {
    expect(
      check('set_variables', { variables: { greeting: 'Hi {{tier}}', n: 1, flag: true, none: null } }),
    ).toEqual({
      errors: [],
      warnings: [],
    });
    expect(
      check('set_variables', { variables: { '2x': 'a', 'odd key': 'b', obj: { a: 1 } } }).errors,
    ).toEqual([
      err(
        'variables["2x"]',
        "'2x' is not a valid variable name for `variables`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
      err(
        'variables["odd key"]',
        "'odd key' is not a valid variable name for `variables`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
      err('variables.obj', 'A value must be a template string, a number, true, false or null.'),
    ]);
    expect(check('set_variables', {}).errors).toEqual([err('variables', '`variables` is required.')]);
    expect(check('set_variables', { variables: [] }).errors).toEqual([
      err('variables', '`variables` must be an object.'),
    ]);
    expect(check('set_variables', { variables: {} }).warnings).toEqual([
      err('variables', 'Sets no variables.'),
    ]);
  });
});

describe('transform', () => {
  it('needs a known operation, an input and save_to_variable', () => {
    expect(
      check('transform', { operation: 'extract_digits', input: '{{said}}', save_to_variable: 'digits' }),
    ).toEqual({
      errors: [],
      warnings: [],
    });
    expect(check('transform', { operation: 'eval' }).errors).toEqual([
      err(
        'operation',
        'Unknown operation; expected one of extract_digits, digits_only, lowercase, uppercase, trim, collapse_whitespace, e164.',
      ),
      err('input', '`input` is required (a template naming what to transform).'),
      err('save_to_variable', '`save_to_variable` is required (the variable to save to).'),
    ]);
    expect(check('transform', { input: 'x', save_to_variable: 'y' }).errors).toEqual([
      err(
        'operation',
        '`operation` is required (one of extract_digits, digits_only, lowercase, uppercase, trim, collapse_whitespace, e164).',
      ),
    ]);
  });
});
