// The functions callable from condition expressions, and the guard on `matches` patterns. The
// guard exists because JavaScript's regex engine backtracks: a pattern such as `(a+)+$` can spin
// for minutes on a short input. Patterns are therefore string literals checked when the workflow
// is validated (length, no back-references, no repetition of a group that itself repeats or
// alternates), and the subject is capped in length.

import { containsValue, toNumber, toText } from './expression-values.js';

export const MAX_PATTERN_LENGTH = 200;
export const MAX_MATCH_SUBJECT_LENGTH = 500;

export interface FunctionSpec {
  minArgs: number;
  maxArgs: number;
  /** `pattern` is the precompiled regex for matches(). */
  call(args: unknown[], pattern?: RegExp): unknown;
}

export const FUNCTIONS: Readonly<Record<string, FunctionSpec>> = {
  contains: { minArgs: 2, maxArgs: 2, call: ([h, n]) => containsValue(h, n) },
  starts_with: { minArgs: 2, maxArgs: 2, call: ([s, p]) => toText(s).startsWith(toText(p)) },
  ends_with: { minArgs: 2, maxArgs: 2, call: ([s, p]) => toText(s).endsWith(toText(p)) },
  lower: { minArgs: 1, maxArgs: 1, call: ([s]) => toText(s).toLowerCase() },
  upper: { minArgs: 1, maxArgs: 1, call: ([s]) => toText(s).toUpperCase() },
  trim: { minArgs: 1, maxArgs: 1, call: ([s]) => toText(s).trim() },
  len: {
    minArgs: 1,
    maxArgs: 1,
    call: ([v]) => (Array.isArray(v) ? v.length : v === null || v === undefined ? 0 : [...toText(v)].length),
  },
  number: { minArgs: 1, maxArgs: 1, call: ([v]) => toNumber(v) },
  matches: {
    minArgs: 2,
    maxArgs: 3,
    call: ([s], pattern) => {
      const subject = toText(s);
      if (pattern === undefined || subject.length > MAX_MATCH_SUBJECT_LENGTH) return false;
      return pattern.test(subject);
    },
  },
};

/** A compiled regex, or the reason the pattern is refused. */
export function compileSafePattern(pattern: string, flags: string): RegExp | string {
  if (pattern.length > MAX_PATTERN_LENGTH) return `Pattern longer than ${MAX_PATTERN_LENGTH} characters`;
  const problem = riskyConstruct(pattern);
  if (problem !== null) return problem;
  try {
    return new RegExp(pattern, flags.includes('i') ? 'iu' : 'u');
  } catch (error) {
    return `Invalid pattern: ${(error as Error).message}`;
  }
}

interface GroupState {
  repeats: boolean;
}

/** Scans the pattern for constructs that can backtrack catastrophically. */
function riskyConstruct(pattern: string): string | null {
  const stack: GroupState[] = [{ repeats: false }];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k'))
        return 'Back-references are not allowed in patterns';
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
    } else if (ch === '(') {
      stack.push({ repeats: false });
    } else if (ch === ')') {
      const group = stack.length > 1 ? stack.pop() : undefined;
      if (group === undefined) continue; // unbalanced: RegExp reports it
      const quantifier = quantifierAt(pattern, i + 1);
      if (quantifier === 'unbounded' && group.repeats) {
        return 'Repeating a group that itself repeats or alternates is not allowed in patterns';
      }
      if (group.repeats || quantifier !== 'none') stack[stack.length - 1].repeats = true;
    } else if (ch === '|') {
      stack[stack.length - 1].repeats = true;
    } else if (quantifierAt(pattern, i) !== 'none' && quantifierAt(pattern, i) !== 'optional') {
      stack[stack.length - 1].repeats = true;
    }
  }
  return null;
}

/** What kind of quantifier starts at `index`: none, `?`/`{0,1}`, or one that can repeat. */
function quantifierAt(pattern: string, index: number): 'none' | 'optional' | 'unbounded' {
  const ch = pattern[index];
  if (ch === '*' || ch === '+') return 'unbounded';
  if (ch === '?') return 'optional';
  if (ch === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
    if (match === null) return 'none';
    const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
    return max <= 1 ? 'optional' : 'unbounded';
  }
  return 'none';
}
