import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ExpressionError,
  compileExpression,
  evaluateExpression,
  expressionVariables,
  isTruthy,
} from './expression.js';

const vars = {
  tier: 'gold',
  pin: '1234',
  attempts: '2',
  score: 7,
  tags: ['vip', 'new'],
  customer: { name: 'Ada Lovelace', plan: { level: 3 } },
  empty: '',
  yes: true,
};

const run = (source: string, variables: Record<string, unknown> = vars): unknown =>
  evaluateExpression(source, variables);

function errorOf(source: string): { message: string; position: number } {
  try {
    compileExpression(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    const e = error as ExpressionError;
    return { message: e.message, position: e.position };
  }
  throw new Error(`expected ${source} not to compile`);
}

describe('literals and paths', () => {
  it('reads numbers, both string quotes, booleans and null', () => {
    expect(run('42')).toBe(42);
    expect(run('3.5')).toBe(3.5);
    expect(run("'it\\'s'")).toBe("it's");
    expect(run('"say \\"hi\\"\\n"')).toBe('say "hi"\n');
    expect(run('true')).toBe(true);
    expect(run('false')).toBe(false);
    expect(run('null')).toBe(null);
  });

  it('reads variables by dotted path and index; missing is null', () => {
    expect(run('customer.plan.level')).toBe(3);
    expect(run('tags.1')).toBe('new');
    expect(run('tags[0]')).toBe('vip');
    expect(run('nope')).toBe(null);
    expect(run('customer.nope.deeper')).toBe(null);
  });

  it('never reads prototype members', () => {
    for (const source of [
      'constructor',
      '__proto__',
      'tier.constructor',
      'tier.length',
      'customer.constructor.name',
      'tags.map',
      'customer.hasOwnProperty',
      'customer.__proto__',
      'toString',
    ]) {
      expect(run(source), source).toBe(null);
    }
    expect(run("len(constructor) == 0 && lower(__proto__) == ''")).toBe(true);
  });
});

describe('operators', () => {
  it('applies precedence: * before +, comparison before &&, && before ||', () => {
    expect(run('1 + 2 * 3')).toBe(7);
    expect(run('(1 + 2) * 3')).toBe(9);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('2 * 3 % 4')).toBe(2);
    expect(run('1 + 1 == 2 && 3 > 2')).toBe(true);
    expect(run('true || false && false')).toBe(true);
    expect(run('(true || false) && false')).toBe(false);
    expect(run('!false && !0')).toBe(true);
    expect(run('-2 * 3')).toBe(-6);
    expect(run('- -2')).toBe(2);
  });

  it('accepts and / or / not as words', () => {
    expect(run("tier == 'gold' and not (score < 5) or false")).toBe(true);
  });

  it('compares numbers with numeric strings, strings with strings', () => {
    expect(run('pin == 1234')).toBe(true);
    expect(run("pin == '1234'")).toBe(true);
    expect(run("pin == '01234'")).toBe(false);
    expect(run('attempts < 3')).toBe(true);
    expect(run("'10' > '9'")).toBe(true);
    expect(run("'b' > 'a'")).toBe(true);
    expect(run('tier < 3')).toBe(false);
    expect(run('nope == null')).toBe(true);
    expect(run('nope != 0')).toBe(true);
    expect(run('tags == ["vip", "new"]')).toBe(true);
  });

  it('adds numbers (and numeric strings), concatenates otherwise', () => {
    expect(run('attempts + 1')).toBe(3);
    expect(run("tier + '-' + score")).toBe('gold-7');
    expect(run("'a' + nope")).toBe('a');
  });

  it('returns null for arithmetic on non-numbers and division by zero', () => {
    expect(run('tier * 2')).toBe(null);
    expect(run('1 / 0')).toBe(null);
    expect(run('5 % 0')).toBe(null);
    expect(run('-tier')).toBe(null);
    expect(run('7 / 2')).toBe(3.5);
  });

  it('tests membership with in: lists and substrings', () => {
    expect(run("tier in ['gold', 'platinum']")).toBe(true);
    expect(run("'vip' in tags")).toBe(true);
    expect(run("'old' in tier")).toBe(true);
    expect(run('2 in [1, "2", 3]')).toBe(true);
    expect(run('1 in nope')).toBe(false);
    expect(run('[]')).toEqual([]);
  });

  it('short-circuits: the right side is not evaluated when the left decides', () => {
    const spy: Record<string, unknown> = { ok: false };
    Object.defineProperty(spy, 'boom', {
      enumerable: true,
      get() {
        throw new Error('right side evaluated');
      },
    });
    expect(run('ok && boom', spy)).toBe(false);
    expect(run('!ok || boom', spy)).toBe(true);
    expect(() => run('ok || boom', spy)).toThrow('right side evaluated');
  });
});

describe('functions', () => {
  it('implements each function', () => {
    expect(run("contains(customer.name, 'Love')")).toBe(true);
    expect(run("contains(tags, 'new')")).toBe(true);
    expect(run("starts_with(customer.name, 'Ada')")).toBe(true);
    expect(run("ends_with(customer.name, 'Ada')")).toBe(false);
    expect(run('lower(customer.name)')).toBe('ada lovelace');
    expect(run('upper(tier)')).toBe('GOLD');
    expect(run("trim('  x ')")).toBe('x');
    expect(run('len(pin)')).toBe(4);
    expect(run('len(tags)')).toBe(2);
    expect(run('len(nope)')).toBe(0);
    expect(run("number('42') + 1")).toBe(43);
    expect(run("number('4x')")).toBe(null);
    expect(run("matches(pin, '^[0-9]{4}$')")).toBe(true);
    expect(run("matches(tier, '^GOLD$', 'i')")).toBe(true);
    expect(run("matches(tier, '^GOLD$')")).toBe(false);
  });

  it('refuses a subject longer than the bound instead of matching', () => {
    expect(run("matches(s, 'a')", { s: 'a'.repeat(201) })).toBe(false);
    expect(run("matches(s, 'a')", { s: 'a'.repeat(200) })).toBe(true);
  });
});

describe('errors carry the position', () => {
  it.each([
    ['tier ==', 'Unexpected end of expression at position 7', 7],
    ["tier = 'gold'", 'Unexpected character "=" (use \'==\' to compare) at position 5', 5],
    ['a & b', 'Unexpected character "&" (use \'&&\') at position 2', 2],
    ["'open", 'Unterminated string at position 0', 0],
    ['(1 + 2', "Expected ')' but found end of expression at position 6", 6],
    ['1 2', "Unexpected '2' at position 2", 2],
    ['foo(1)', "Unknown function 'foo' at position 0", 0],
    ['len(1, 2)', 'len() takes 1 argument(s), got 2 at position 0', 0],
    ['a.', 'Expected a name or index but found end of expression at position 2', 2],
    ['3abc', 'Invalid number at position 0', 0],
    ['x # y', 'Unexpected character "#" at position 2', 2],
    ["'\\q'", 'Invalid escape in string at position 1', 1],
    ['in', "Unexpected 'in' at position 0", 0],
    ['matches(a, b)', 'matches() needs its pattern as a string literal at position 11', 11],
    ["matches(a, 'x', 'g')", "matches() flags must be the literal 'i' or '' at position 16", 16],
    [
      "matches(a, '(a+)+$')",
      'Repeating a group that itself repeats or alternates is not allowed in patterns at position 11',
      11,
    ],
    ["matches(a, '(x)\\\\1')", 'Back-references are not allowed in patterns at position 11', 11],
    [
      "matches(a, '[')",
      'Invalid pattern: Invalid regular expression: /[/u: Unterminated character class at position 11',
      11,
    ],
  ])('%s', (source, message, position) => {
    expect(errorOf(source)).toEqual({ message, position });
  });

  it('refuses deep nesting and very long sources with ExpressionError', () => {
    expect(errorOf('('.repeat(200) + '1' + ')'.repeat(200)).message).toMatch(/nested too deeply/);
    expect(errorOf('!'.repeat(200) + 'x').message).toMatch(/nested too deeply/);
    expect(errorOf('1+'.repeat(1001) + '1').message).toMatch(/longer than 2000/);
  });

  it('accepts safe pattern shapes', () => {
    for (const pattern of ['^(\\\\d{3})?-?\\\\d{4}$', '^(yes|yeah|yep)$', '^[a-z]+( [a-z]+)?$', '(ab)+']) {
      expect(() => compileExpression(`matches(x, '${pattern}')`), pattern).not.toThrow();
    }
    for (const pattern of [
      '^\\\\+?1?\\\\d{10}$',
      '.*help.*',
      '(?:yes|no)',
      '(?<word>[a-z]+) [a-z]+',
      'a+?b*?',
      '[(+*]+x',
    ]) {
      expect(() => compileExpression(`matches(x, '${pattern}')`), pattern).not.toThrow();
    }
    for (const pattern of ['(a|b)*', '(a*)*', '((ab)+)+', '(a{2,})+', '(?:yes|no)+', '(?:a?)+']) {
      expect(() => compileExpression(`matches(x, '${pattern}')`), pattern).toThrow(ExpressionError);
    }
  });

  it('refuses patterns with more than two unbounded repetitions', () => {
    for (const pattern of ['.*.*.*x', '\\\\d*\\\\d*\\\\d*x', '[a-z]+@[a-z]+\\\\.[a-z]+', 'a{2,}b{3,}c+']) {
      expect(errorOf(`matches(x, '${pattern}')`), pattern).toEqual({
        message:
          'Pattern too open-ended for backtracking: at most two unbounded repetitions (*, +, {n,}) at position 11',
        position: 11,
      });
    }
  });

  it('throws nothing but ExpressionError on arbitrary input (property)', () => {
    const alphabet = fc.constantFrom(
      ...`abxyz019 .,'"()[]!=<>&|+-*/%_\\#`.split(''),
      'in',
      'len(',
      'matches(',
      'true',
    );
    const sources = fc.oneof(
      fc.string(),
      fc.array(alphabet, { maxLength: 40 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(sources, (source) => {
        try {
          compileExpression(source).evaluate(vars);
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error;
          expect(error.position).toBeGreaterThanOrEqual(0);
          expect(error.position).toBeLessThanOrEqual(source.length);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('compileExpression', () => {
  it('lists the root variables read and can be evaluated many times', () => {
    const compiled = compileExpression("tier == 'gold' && customer.plan.level > n && tier != x");
    expect(compiled.variables).toEqual(['tier', 'customer', 'n', 'x']);
    expect(compiled.evaluate({ tier: 'gold', customer: { plan: { level: 3 } }, n: 2 })).toBe(true);
    expect(compiled.evaluate({ tier: 'gold', customer: { plan: { level: 3 } }, n: 5 })).toBe(false);
    expect(expressionVariables('a +')).toEqual([]);
  });

  it('defines truthiness', () => {
    expect([null, undefined, false, 0, '', [], NaN].map(isTruthy)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([true, 1, 'x', ['a'], {}].map(isTruthy)).toEqual([true, true, true, true, true]);
  });
});
