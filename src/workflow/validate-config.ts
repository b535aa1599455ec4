// Required and typed config per node type: the conversation and data nodes here, the nodes that
// reach outside (webhook, dial, transfers) in validate-config-calls.ts.

import { compileExpression, ExpressionError } from './expression.js';
import type { GraphNode } from './graph.types.js';
import { DEFAULT_HANDLE } from './node-specs.js';
import { fieldPath } from './node-variables.js';
import { TRANSFORM_OPERATIONS, isTransformOperation } from './transform.js';
import { terminatorKey } from './terminator.js';
import { checkDial, checkTransfer, checkWebhook } from './validate-config-calls.js';
import { ConfigFields, variableNameMessage } from './validate-fields.js';
import { HANDLE_NAME, VARIABLE_NAME } from './validate-shared.js';
import type { Findings, ValidationContext } from './validate-shared.js';

export function checkConfigs(nodes: readonly GraphNode[], context: ValidationContext, out: Findings): void {
  for (const node of nodes) checkConfig(new ConfigFields(node, out), context);
}

function checkConfig(f: ConfigFields, context: ValidationContext): void {
  switch (f.node.type) {
    case 'speak':
      f.string('text', true, 'what to say');
      f.boolean('barge_in');
      return;
    case 'agent':
      return checkAgent(f, context);
    case 'dtmf':
      return checkDtmf(f);
    case 'condition':
      return checkCondition(f);
    case 'set_variables':
      return checkSetVariables(f);
    case 'transform':
      if (f.has('operation') && !isTransformOperation(f.config.operation)) {
        f.error('operation', `Unknown operation; expected one of ${TRANSFORM_OPERATIONS.join(', ')}.`);
      } else if (!f.has('operation')) {
        f.error('operation', `\`operation\` is required (one of ${TRANSFORM_OPERATIONS.join(', ')}).`);
      }
      f.string('input', true, 'a template naming what to transform');
      f.variableName('save_to_variable', true);
      return;
    case 'webhook':
      return checkWebhook(f);
    case 'dial':
      return checkDial(f);
    case 'transfer_to_human':
    case 'transfer_call':
      return checkTransfer(f);
    case 'start':
    case 'end':
    case 'hangup':
      return;
  }
}

function checkDtmf(f: ConfigFields): void {
  f.string('prompt', false);
  const numDigits = f.config.num_digits;
  if (
    numDigits !== undefined &&
    (typeof numDigits !== 'number' || !Number.isInteger(numDigits) || numDigits < 1)
  ) {
    f.error('num_digits', '`num_digits` must be a whole number of at least 1.');
  } else {
    f.integer('num_digits', 1, 64);
  }
  const terminator = f.config.terminator;
  if (terminator !== undefined && terminatorKey(terminator) === null) {
    f.error(
      'terminator',
      "`terminator` must be one key: '#' (or 'pound'), '*' (or 'star') or a digit ('' for none).",
    );
  }
  f.seconds('timeout_seconds');
  f.variableName('save_to_variable', true);
  f.boolean('speech');
  if (terminator === '' && numDigits === undefined) {
    f.warning('terminator', 'With no terminator and no `num_digits`, collection always ends by `timeout`.');
  }
}

function checkAgent(f: ConfigFields, context: ValidationContext): void {
  const agentId = f.string('agent_id', true, 'an agent of this project');
  if (agentId !== undefined && context.agentIds !== undefined && !context.agentIds.has(agentId)) {
    f.error('agent_id', `No agent '${agentId}' in this project.`);
  }
  f.string('instructions', false);
  f.string('greeting', false);
  const history = f.config.history;
  if (history !== undefined && history !== 'append' && history !== 'reset') {
    f.error('history', "`history` must be 'append' or 'reset'.");
  }
  f.integer('max_turns', 1, 1000);
  f.integer('max_tool_rounds', 1, 50);
  f.seconds('silence_timeout_seconds');
  checkHandleList(f, 'exits', 'description');
  const outputs = f.array('outputs', false) ?? [];
  outputs.forEach((item, i) => {
    const at = `outputs[${i}]`;
    const output = asRecord(item);
    if (output === null) return f.error(at, 'Each output must be {"variable", "description"}.');
    if (typeof output.variable !== 'string' || !VARIABLE_NAME.test(output.variable)) {
      f.error(`${at}.variable`, variableNameMessage(`${at}.variable`, String(output.variable ?? '')));
    }
    if (typeof output.description !== 'string' || output.description.trim() === '') {
      f.warning(`${at}.description`, 'No description: the model is told only the variable name.');
    }
  });
}

/**
 * `branches` of a condition or `exits` of an agent: unique handle names plus one text field each.
 * An exit may be a bare handle name (`"exits": ["billing"]`); its description is then the engine's
 * default, which is why a missing description is a warning while a missing expression is an error.
 */
function checkHandleList(
  f: ConfigFields,
  key: 'branches' | 'exits',
  textKey: 'expression' | 'description',
): void {
  const list = f.array(key, key === 'branches') ?? [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    const at = `${key}[${i}]`;
    const bareExit = key === 'exits' && typeof item === 'string';
    const entry = bareExit ? { handle: item } : asRecord(item);
    if (entry === null)
      return f.error(at, `Each entry must be an object with \`handle\` and \`${textKey}\`.`);
    const handleField = bareExit ? at : `${at}.handle`;
    const handle = entry.handle;
    if (typeof handle !== 'string' || !HANDLE_NAME.test(handle)) {
      f.error(
        handleField,
        'A handle name is lower-case letters, digits and _, starting with a letter (at most 64).',
      );
    } else if (handle === DEFAULT_HANDLE) {
      f.error(handleField, `'${DEFAULT_HANDLE}' is reserved for the node's default handle.`);
    } else if (seen.has(handle)) {
      f.error(handleField, `Handle '${handle}' is already used by ${key}[${seen.get(handle)}].`);
    } else {
      seen.set(handle, i);
    }
    const text = entry[textKey as keyof typeof entry];
    const missing = typeof text !== 'string' || text.trim() === '';
    if (textKey === 'expression') {
      if (missing) f.error(`${at}.expression`, 'The branch needs an `expression`.');
      else checkExpression(f, `${at}.expression`, text);
    } else if (missing) {
      f.warning(
        bareExit ? at : `${at}.description`,
        'No description: the model is told only the handle name of this exit.',
      );
    }
  });
}

function checkExpression(f: ConfigFields, field: string, source: string): void {
  try {
    compileExpression(source);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    f.error(field, `Invalid expression: ${error.message}.`);
  }
}

function checkCondition(f: ConfigFields): void {
  checkHandleList(f, 'branches', 'expression');
  const branches = f.config.branches;
  if (Array.isArray(branches) && branches.length === 0) {
    f.warning('branches', 'No branches: the node always leaves by its default handle.');
  }
}

function checkSetVariables(f: ConfigFields): void {
  const variables = f.record('variables', true);
  if (variables === undefined) return;
  const names = Object.keys(variables);
  if (names.length === 0) f.warning('variables', 'Sets no variables.');
  for (const name of names) {
    const field = fieldPath('variables', name);
    const value = variables[name];
    if (!VARIABLE_NAME.test(name)) f.error(field, variableNameMessage('variables', name));
    else if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      f.error(field, 'A value must be a template string, a number, true, false or null.');
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
