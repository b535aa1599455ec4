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
  const reader = new DigitReader();
  for (const token of tokens) reader.read(token);
  return reader.finish();
}

/** Reads tokens left to right, keeping at most one spoken number open at a time. */
class DigitReader {
  private out = '';
  private group: Group | null = null;
  /** Set by "double"/"triple": how many times the next digit is said. */
  private repeat = 1;

  read(token: string): void {
    if (/^[0-9]/.test(token)) return this.emit(token);
    const times = own(REPEATS, token);
    if (times !== undefined) {
      this.flush();
      this.repeat = times;
      return;
    }
    const unit = own(UNITS, token);
    if (unit !== undefined) return this.unit(unit);
    const teen = own(TEENS, token);
    if (teen !== undefined) return this.belowHundred(teen, 'none');
    const tens = own(TENS, token);
    if (tens !== undefined) return this.belowHundred(tens, 'unit');
    if (this.scale(token)) return;
    if (JOINERS.has(token) && this.group !== null) return;
    this.flush();
  }

  finish(): string {
    this.flush();
    return this.out;
  }

  private flush(): void {
    if (this.group !== null) this.out += String(this.group.high + this.group.low);
    this.group = null;
  }

  private emit(digits: string): void {
    this.flush();
    this.out += digits[0].repeat(this.repeat) + digits.slice(1);
    this.repeat = 1;
  }

  private unit(unit: number): void {
    const g = this.group;
    // Zero and repeated digits are always said digit by digit ("oh", "double five").
    if (unit === 0 || this.repeat > 1) return this.emit(String(unit));
    if (g === null || g.open === 'none') {
      this.flush();
      this.group = { high: 0, low: unit, open: 'none', scalable: true };
      return;
    }
    // After "thousand" a bare unit may still be scaled: "two thousand five hundred".
    g.scalable = g.open === 'below_hundred' && g.low === 0;
    g.low += unit;
    g.open = 'none';
  }

  /** A teen or tens word: completes an open "… hundred"/"… thousand", else starts a number. */
  private belowHundred(value: number, open: Group['open']): void {
    this.repeat = 1;
    const g = this.group;
    if (g !== null && g.open === 'below_hundred') {
      g.low += value;
      g.open = open;
      g.scalable = false;
      return;
    }
    this.flush();
    this.group = { high: 0, low: value, open, scalable: open === 'none' };
  }

  /** "hundred" and "thousand" scale the number before them; false when they cannot. */
  private scale(word: string): boolean {
    const g = this.group;
    if (g === null) return false;
    if (word === 'hundred' && g.scalable && g.low > 0 && g.low < 100) {
      g.low *= 100;
      g.open = 'below_hundred';
      g.scalable = false;
      return true;
    }
    if (word === 'thousand' && g.high === 0 && g.low > 0) {
      g.high = g.low * 1000;
      g.low = 0;
      g.open = 'below_hundred';
      g.scalable = true;
      return true;
    }
    return false;
  }
}
