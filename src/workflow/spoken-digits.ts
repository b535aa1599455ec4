// Spoken digits to digit strings, for the `extract_digits` transform: what a caller says when asked
// for a number ("four one one", "four-one-one", "oh", "double five", "nineteen eighty four",
// "five hundred and two") as a speech recognizer writes it, mixed freely with written digits.
// Digit words in a row are concatenated ("four one one" is 411), while a tens word takes the unit
// after it ("twenty one" is 21) and "hundred"/"thousand" scale the group before them.

const UNITS: Readonly<Record<string, number>> = {
  zero: 0,
  oh: 0,
  o: 0,
  nought: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  niner: 9,
};
const TEENS: Readonly<Record<string, number>> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const REPEATS: Readonly<Record<string, number>> = { double: 2, triple: 3, treble: 3, quadruple: 4 };
/** Words that may sit inside one spoken number without ending it ("five hundred and two"). */
const JOINERS: ReadonlySet<string> = new Set(['and']);

/**
 * A number being spoken: `high` holds thousands already said, `low` the part below a thousand.
 * `open` says what may still be added to `low`: a unit after a tens word, or anything below a
 * hundred after "hundred"/"thousand".
 */
interface Group {
  high: number;
  low: number;
  open: 'none' | 'unit' | 'below_hundred';
  /** Whether "hundred" may still scale `low` (it is 1..99 and not scaled yet). */
  scalable: boolean;
}

function own(table: Readonly<Record<string, number>>, word: string): number | undefined {
  return Object.hasOwn(table, word) ? table[word] : undefined;
}

export function extractDigits(input: string): string {
  // Split letters from digits ("4one1" is three tokens) and drop every separator.
  const tokens = input.toLowerCase().match(/[a-z]+|[0-9]+/g) ?? [];
  let out = '';
  let group: Group | null = null;
  let repeat = 1;

  const flush = (): void => {
    if (group !== null) out += String(group.high + group.low);
    group = null;
  };
  const emitDigits = (digits: string): void => {
    flush();
    out += digits[0].repeat(repeat) + digits.slice(1);
    repeat = 1;
  };

  for (const token of tokens) {
    if (/^[0-9]/.test(token)) {
      emitDigits(token);
      continue;
    }
    const times = own(REPEATS, token);
    if (times !== undefined) {
      flush();
      repeat = times;
      continue;
    }
    const unit = own(UNITS, token);
    if (unit !== undefined) {
      const g: Group | null = group;
      if (repeat > 1 || unit === 0 || g === null || g.open === 'none') {
        if (unit === 0 || repeat > 1) emitDigits(String(unit));
        else {
          flush();
          group = { high: 0, low: unit, open: 'none', scalable: true };
        }
      } else {
        // After "thousand" a bare unit may still be scaled: "two thousand five hundred".
        g.scalable = g.open === 'below_hundred' && g.low === 0;
        g.low += unit;
        g.open = 'none';
      }
      continue;
    }
    const teen = own(TEENS, token);
    const tens = own(TENS, token);
    if (teen !== undefined || tens !== undefined) {
      const value = teen ?? tens ?? 0;
      const g: Group | null = group;
      repeat = 1;
      if (g !== null && g.open === 'below_hundred') {
        g.low += value;
      } else {
        flush();
        group = { high: 0, low: value, open: 'none', scalable: true };
      }
      const current = group as Group | null;
      if (current !== null) {
        current.open = tens !== undefined ? 'unit' : 'none';
        current.scalable = current.low < 100 && current.high === 0 ? current.scalable : false;
      }
      continue;
    }
    const g: Group | null = group;
    if (token === 'hundred' && g !== null && g.scalable && g.low > 0 && g.low < 100) {
      g.low *= 100;
      g.open = 'below_hundred';
      g.scalable = false;
      continue;
    }
    if (token === 'thousand' && g !== null && g.high === 0 && g.low > 0) {
      g.high = g.low * 1000;
      g.low = 0;
      g.open = 'below_hundred';
      g.scalable = true;
      continue;
    }
    if (JOINERS.has(token) && g !== null) continue;
    flush();
  }
  flush();
  return out;
}
