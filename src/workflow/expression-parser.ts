// Pratt parser of the condition expression language: tokens in, a small immutable tree out. Every
// function name and arity is checked here, and `matches` patterns (string literals only) are
// compiled here, so a published workflow can never fail on a malformed expression at call time.

import { ExpressionError, tokenize } from './expression-lexer.js';
import type { Token } from './expression-lexer.js';
import { FUNCTIONS, compileSafePattern } from './expression-functions.js';

export type BinaryOp =
  '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | '+' | '-' | '*' | '/' | '%';

export type ExprNode =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'path'; segments: string[]; position: number }
  | { kind: 'list'; items: ExprNode[] }
  | { kind: 'unary'; op: '!' | '-'; operand: ExprNode }
  | { kind: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode }
  | { kind: 'call'; name: string; args: ExprNode[]; pattern?: RegExp };

/** [left, right] binding powers; higher binds tighter. */
const INFIX: Readonly<Record<string, readonly [number, number]>> = {
  '||': [1, 2],
  or: [1, 2],
  '&&': [3, 4],
  and: [3, 4],
  '==': [5, 6],
  '!=': [5, 6],
  '<': [7, 8],
  '<=': [7, 8],
  '>': [7, 8],
  '>=': [7, 8],
  in: [7, 8],
  '+': [9, 10],
  '-': [9, 10],
  '*': [11, 12],
  '/': [11, 12],
  '%': [11, 12],
};
const PREFIX_POWER = 13;
const WORD_OPS: Readonly<Record<string, BinaryOp>> = { or: '||', and: '&&', in: 'in' };
const RESERVED = new Set(['true', 'false', 'null', 'and', 'or', 'not', 'in']);

/** Nesting deeper than this is refused rather than risking the call stack. */
export const MAX_DEPTH = 64;

export function parseExpression(source: string): ExprNode {
  const parser = new Parser(tokenize(source));
  const tree = parser.expression(0, 0);
  const rest = parser.peek();
  if (rest.kind !== 'eof') throw new ExpressionError(`Unexpected ${describe(rest)}`, rest.position);
  return tree;
}

function describe(token: Token): string {
  if (token.kind === 'eof') return 'end of expression';
  if (token.kind === 'string') return 'string';
  return `'${token.text}'`;
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  private expectOp(text: string): Token {
    const token = this.next();
    if (token.kind !== 'op' || token.text !== text) {
      throw new ExpressionError(`Expected '${text}' but found ${describe(token)}`, token.position);
    }
    return token;
  }

  /** Consumes a `,` between list items or arguments; false when the list ends here. */
  private skipComma(): boolean {
    if (!this.isOp(',')) return false;
    this.next();
    return true;
  }

  private isOp(text: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.text === text;
  }

  expression(minPower: number, depth: number): ExprNode {
    if (depth > MAX_DEPTH) throw new ExpressionError('Expression nested too deeply', this.peek().position);
    let left = this.prefix(depth);
    while (true) {
      const token = this.peek();
      const key = token.kind === 'op' || token.kind === 'ident' ? token.text : '';
      const power = Object.hasOwn(INFIX, key) ? INFIX[key] : undefined;
      if (power === undefined || power[0] < minPower) break;
      this.next();
      const right = this.expression(power[1], depth + 1);
      const op = (WORD_OPS[key] ?? key) as BinaryOp;
      left = { kind: 'binary', op, left, right };
    }
    return left;
  }

  private prefix(depth: number): ExprNode {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { kind: 'literal', value: Number(token.text) };
      case 'string':
        return { kind: 'literal', value: token.text };
      case 'eof':
        throw new ExpressionError('Unexpected end of expression', token.position);
      case 'op':
        if (token.text === '(') {
          const inner = this.expression(0, depth + 1);
          this.expectOp(')');
          return inner;
        }
        if (token.text === '[') return this.list(depth);
        if (token.text === '!' || token.text === '-') {
          return { kind: 'unary', op: token.text, operand: this.expression(PREFIX_POWER, depth + 1) };
        }
        throw new ExpressionError(`Unexpected ${describe(token)}`, token.position);
      case 'ident':
        return this.identifier(token, depth);
    }
  }

  private list(depth: number): ExprNode {
    const items: ExprNode[] = [];
    if (!this.isOp(']')) {
      do {
        items.push(this.expression(0, depth + 1));
      } while (this.skipComma());
    }
    this.expectOp(']');
    return { kind: 'list', items };
  }

  private identifier(token: Token, depth: number): ExprNode {
    switch (token.text) {
      case 'true':
        return { kind: 'literal', value: true };
      case 'false':
        return { kind: 'literal', value: false };
      case 'null':
        return { kind: 'literal', value: null };
      case 'not':
        return { kind: 'unary', op: '!', operand: this.expression(PREFIX_POWER, depth + 1) };
    }
    if (RESERVED.has(token.text)) throw new ExpressionError(`Unexpected '${token.text}'`, token.position);
    if (this.isOp('(')) return this.call(token, depth);
    const segments = [token.text];
    while (this.isOp('.') || this.isOp('[')) {
      const open = this.next();
      const part = this.next();
      const isIndex = part.kind === 'number' && /^(0|[1-9][0-9]*)$/.test(part.text);
      if (open.text === '.' && (part.kind === 'ident' || isIndex)) {
        segments.push(part.text);
      } else if (open.text === '[' && isIndex) {
        segments.push(part.text);
        this.expectOp(']');
      } else {
        throw new ExpressionError(`Expected a name or index but found ${describe(part)}`, part.position);
      }
    }
    return { kind: 'path', segments, position: token.position };
  }

  private call(name: Token, depth: number): ExprNode {
    const spec = Object.hasOwn(FUNCTIONS, name.text) ? FUNCTIONS[name.text] : undefined;
    if (spec === undefined) throw new ExpressionError(`Unknown function '${name.text}'`, name.position);
    this.expectOp('(');
    const args: ExprNode[] = [];
    const argPositions: number[] = [];
    if (!this.isOp(')')) {
      do {
        argPositions.push(this.peek().position);
        args.push(this.expression(0, depth + 1));
      } while (this.skipComma());
    }
    this.expectOp(')');
    if (args.length < spec.minArgs || args.length > spec.maxArgs) {
      const expected =
        spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
      throw new ExpressionError(
        `${name.text}() takes ${expected} argument(s), got ${args.length}`,
        name.position,
      );
    }
    if (name.text !== 'matches') return { kind: 'call', name: name.text, args };
    const pattern = args[1];
    const flags = args[2];
    if (pattern.kind !== 'literal' || typeof pattern.value !== 'string') {
      throw new ExpressionError('matches() needs its pattern as a string literal', argPositions[1]);
    }
    if (flags !== undefined && (flags.kind !== 'literal' || (flags.value !== 'i' && flags.value !== ''))) {
      throw new ExpressionError("matches() flags must be the literal 'i' or ''", argPositions[2]);
    }
    const problem = compileSafePattern(pattern.value, flags?.kind === 'literal' ? String(flags.value) : '');
    if (typeof problem === 'string') throw new ExpressionError(problem, argPositions[1]);
    return { kind: 'call', name: 'matches', args, pattern: problem };
  }
}
