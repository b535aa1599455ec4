// The functions callable from condition expressions, and the guard on `matches` patterns. The
// guard exists because JavaScript's regex engine backtracks: a pattern such as `(a+)+$` can spin
// for minutes on a short input. Patterns are therefore string literals checked when the workflow
// is validated (length, no back-references, no repetition of a group that itself repeats or
// alternates, at most two unbounded repetitions overall), and the subject is capped in length.

import { containsValue, toNumber, toText } from './expression-values.js';

export const MAX_PATTERN_LENGTH = 200;
export const MAX_MATCH_SUBJECT_LENGTH = 200;

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
  /** The group contains a repetition or an alternation. */
  repeats: boolean;
}

/** Ways a repetition may split the subject: the subject's length bound for `*`, `+` and `{n,}`. */
const UNBOUNDED_CHOICES = MAX_MATCH_SUBJECT_LENGTH;
/**
 * Upper bound on the product of every quantifier's and alternation's choices. Backtracking tries
 * at most about that many splits per start position, so two unbounded repetitions (`.*help.*`)
 * pass and a third (`.*.*.*x`, seconds of CPU on 200 characters) does not.
 */
export const MAX_PATTERN_CHOICES = UNBOUNDED_CHOICES ** 2 * 4;

interface Quantifier {
  length: number;
  choices: number;
  repeats: boolean;
}

/** The quantifier (with its lazy `?`) starting at `index`, or null. */
function quantifierAt(pattern: string, index: number): Quantifier | null {
  const ch = pattern[index];
  let q: Quantifier | null = null;
  if (ch === '*' || ch === '+') q = { length: 1, choices: UNBOUNDED_CHOICES, repeats: true };
  else if (ch === '?') q = { length: 1, choices: 2, repeats: false };
  else if (ch === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
    if (match === null) return null;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    const choices = max === Infinity ? UNBOUNDED_CHOICES : Math.max(1, max - min + 1);
    q = { length: match[0].length, choices, repeats: max > 1 };
  }
  if (q !== null && pattern[index + q.length] === '?') q.length++;
  return q;
}

/** Length of a group's `?:`, `?=`, `?!`, `?<=`, `?<!` or `?<name>` prefix at `index`. */
function groupPrefixLength(pattern: string, index: number): number {
  if (pattern[index] !== '?') return 0;
  const match = /^\?(?::|=|!|<=|<!|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(pattern.slice(index));
  return match === null ? 1 : match[0].length;
}

/** Scans the pattern for constructs that can backtrack catastrophically. */
function riskyConstruct(pattern: string): string | null {
  const stack: GroupState[] = [{ repeats: false }];
  let choices = 1;
  let i = 0;
  /** After an atom: applies its quantifier, if any, to the choices and the enclosing group. */
  const afterAtom = (group: GroupState | null): string | null => {
    const q = quantifierAt(pattern, i);
    if (q === null) return null;
    if (group !== null && group.repeats && q.repeats) {
      return 'Repeating a group that itself repeats or alternates is not allowed in patterns';
    }
    choices *= q.choices;
    if (q.repeats || q.choices > 1) stack[stack.length - 1].repeats = true;
    i += q.length;
    return null;
  };
  while (i < pattern.length) {
    const ch = pattern[i];
    let problem: string | null = null;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'Back-references are not allowed in patterns';
      i += 2;
      problem = afterAtom(null);
    } else if (ch === '[') {
      i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      problem = afterAtom(null);
    } else if (ch === '(') {
      stack.push({ repeats: false });
      i += 1 + groupPrefixLength(pattern, i + 1);
    } else if (ch === ')') {
      const group = stack.length > 1 ? (stack.pop() as GroupState) : { repeats: false };
      if (group.repeats) stack[stack.length - 1].repeats = true;
      i++;
      problem = afterAtom(group);
    } else if (ch === '|') {
      stack[stack.length - 1].repeats = true;
      choices *= 2;
      i++;
    } else if (ch === '^' || ch === '$') {
      i++;
    } else {
      i++;
      problem = afterAtom(null);
    }
    if (problem !== null) return problem;
    if (choices > MAX_PATTERN_CHOICES) {
      return 'Pattern too open-ended for backtracking: at most two unbounded repetitions (*, +, {n,})';
    }
  }
  return null;
}
