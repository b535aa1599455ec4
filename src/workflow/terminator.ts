// The `dtmf` node's `terminator`: one key ('#', '*' or a digit), '' for none, or the key's name.
// The spec describes it as "key that ends collection (e.g. pound)", so the names a reader of it
// may write, `pound` and `star`, mean the keys `#` and `*`.

/** JSON Schema pattern of a valid terminator (the published graph schema uses it). */
export const TERMINATOR_PATTERN = '^([0-9*#]?|pound|star)$';

const NAMED: Readonly<Record<string, string>> = { pound: '#', star: '*' };
const KEY = /^[0-9*#]?$/;

/** The key a terminator value stands for ('' = none), or null when the value is not one. */
export function terminatorKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (KEY.test(value)) return value;
  return NAMED[value] ?? null;
}
