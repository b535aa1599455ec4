// The safe expression language of `condition` branches: `tier == 'gold' && len(pin) == 4`.
// Source is tokenized and parsed by hand (expression-lexer.ts, expression-parser.ts) and the tree
// is walked here; there is no eval, no Function and no property access beyond own data of plain
// objects (paths.ts), so an expression can read variables and nothing else. Evaluation never
// throws: type mismatches yield null or false. Grammar and semantics: docs/workflow-nodes.md.

import { ExpressionError } from './expression-lexer.js';
import { parseExpression } from './expression-parser.js';
import type { ExprNode } from './expression-parser.js';
import { FUNCTIONS } from './expression-functions.js';
import {
  compareValues,
  containsValue,
  isTruthy,
  looseEquals,
  toNumber,
  toText,
} from './expression-values.js';
import { lookupPath } from './paths.js';

export { ExpressionError } from './expression-lexer.js';
export { isTruthy } from './expression-values.js';

export type ExpressionVariables = Readonly<Record<string, unknown>>;

export interface CompiledExpression {
  readonly source: string;
  /** Root variable names the expression reads, deduplicated, in order of appearance. */
  readonly variables: readonly string[];
  evaluate(variables: ExpressionVariables): unknown;
}

/** Parses and checks the source; throws ExpressionError (with `position`) when it is not valid. */
export function compileExpression(source: string): CompiledExpression {
  if (typeof source !== 'string') throw new ExpressionError('Expression must be a string', 0);
  const tree = parseExpression(source);
  const names = new Set<string>();
  collectVariables(tree, names);
  return Object.freeze({
    source,
    variables: Object.freeze([...names]),
    evaluate: (variables: ExpressionVariables) => evaluateNode(tree, variables),
  });
}

export function evaluateExpression(source: string, variables: ExpressionVariables): unknown {
  return compileExpression(source).evaluate(variables);
}

/** Root variable names read by the expression, or [] when it does not compile. */
export function expressionVariables(source: string): string[] {
  try {
    return [...compileExpression(source).variables];
  } catch (error) {
    if (error instanceof ExpressionError) return [];
    throw error;
  }
}

function collectVariables(node: ExprNode, names: Set<string>): void {
  switch (node.kind) {
    case 'path':
      names.add(node.segments[0]);
      return;
    case 'list':
      node.items.forEach((item) => collectVariables(item, names));
      return;
    case 'unary':
      collectVariables(node.operand, names);
      return;
    case 'binary':
      collectVariables(node.left, names);
      collectVariables(node.right, names);
      return;
    case 'call':
      node.args.forEach((arg) => collectVariables(arg, names));
      return;
    case 'literal':
      return;
  }
}

function evaluateNode(node: ExprNode, variables: ExpressionVariables): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'path': {
      const value = lookupPath(variables, node.segments);
      return value === undefined ? null : value;
    }
    case 'list':
      return node.items.map((item) => evaluateNode(item, variables));
    case 'unary': {
      const operand = evaluateNode(node.operand, variables);
      if (node.op === '!') return !isTruthy(operand);
      const n = toNumber(operand);
      return n === null ? null : -n;
    }
    case 'call': {
      const args = node.args.map((arg) => evaluateNode(arg, variables));
      return FUNCTIONS[node.name].call(args, node.pattern);
    }
    case 'binary':
      return evaluateBinary(node.op, node.left, node.right, variables);
  }
}

function evaluateBinary(
  op: Extract<ExprNode, { kind: 'binary' }>['op'],
  leftNode: ExprNode,
  rightNode: ExprNode,
  variables: ExpressionVariables,
): unknown {
  // Short-circuit before evaluating the right side.
  if (op === '&&')
    return isTruthy(evaluateNode(leftNode, variables)) && isTruthy(evaluateNode(rightNode, variables));
  if (op === '||')
    return isTruthy(evaluateNode(leftNode, variables)) || isTruthy(evaluateNode(rightNode, variables));
  const left = evaluateNode(leftNode, variables);
  const right = evaluateNode(rightNode, variables);
  switch (op) {
    case '==':
      return looseEquals(left, right);
    case '!=':
      return !looseEquals(left, right);
    case 'in':
      return containsValue(right, left);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const order = compareValues(left, right);
      if (order === null) return false;
      return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
    }
    case '+': {
      const x = toNumber(left);
      const y = toNumber(right);
      return x !== null && y !== null ? x + y : toText(left) + toText(right);
    }
    default: {
      const x = toNumber(left);
      const y = toNumber(right);
      if (x === null || y === null) return null;
      if (op === '-') return x - y;
      if (op === '*') return x * y;
      if (y === 0) return null;
      return op === '/' ? x / y : x % y;
    }
  }
}
