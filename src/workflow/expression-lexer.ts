// Tokenizer of the condition expression language (grammar in docs/workflow-nodes.md). Hand-written
// so that every failure is an ExpressionError carrying the offending character offset.

export class ExpressionError extends Error {
  constructor(
    message: string,
    /** 0-based character offset in the source where the problem was found. */
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'ExpressionError';
  }
}

export type TokenKind = 'number' | 'string' | 'ident' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Source text for ident/op, decoded text for strings, numeric text for numbers. */
  text: string;
  position: number;
}

/** Longest operators first so `<=` wins over `<`. */
const OPERATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  '[',
  ']',
  ',',
  '.',
];

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

export const MAX_EXPRESSION_LENGTH = 2000;

export function tokenize(source: string): Token[] {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(
      `Expression longer than ${MAX_EXPRESSION_LENGTH} characters`,
      MAX_EXPRESSION_LENGTH,
    );
  }
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (ch >= '0' && ch <= '9') {
      while (i < source.length && source[i] >= '0' && source[i] <= '9') i++;
      if (source[i] === '.' && source[i + 1] >= '0' && source[i + 1] <= '9') {
        i++;
        while (i < source.length && source[i] >= '0' && source[i] <= '9') i++;
      }
      if (/[A-Za-z_]/.test(source[i] ?? '')) throw new ExpressionError('Invalid number', start);
      tokens.push({ kind: 'number', text: source.slice(start, i), position: start });
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      while (i < source.length && /[A-Za-z0-9_]/.test(source[i])) i++;
      tokens.push({ kind: 'ident', text: source.slice(start, i), position: start });
      continue;
    }
    if (ch === "'" || ch === '"') {
      i++;
      let text = '';
      while (true) {
        if (i >= source.length) throw new ExpressionError('Unterminated string', start);
        const c = source[i];
        if (c === ch) break;
        if (c === '\\') {
          const escaped = ESCAPES[source[i + 1] ?? ''];
          if (escaped === undefined) throw new ExpressionError('Invalid escape in string', i);
          text += escaped;
          i += 2;
          continue;
        }
        text += c;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', text, position: start });
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (op === undefined) {
      const hint =
        ch === '=' ? " (use '==' to compare)" : ch === '&' || ch === '|' ? ` (use '${ch}${ch}')` : '';
      throw new ExpressionError(`Unexpected character ${JSON.stringify(ch)}${hint}`, start);
    }
    i += op.length;
    tokens.push({ kind: 'op', text: op, position: start });
  }
  tokens.push({ kind: 'eof', text: '', position: source.length });
  return tokens;
}
