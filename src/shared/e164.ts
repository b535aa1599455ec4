// E.164 numbers: "+" then 2 to 15 digits, the first not 0, and a length the numbering plan of the
// country code allows (libphonenumber's "possible" check, so test ranges like 555-01xx pass).
import { parsePhoneNumberFromString } from 'libphonenumber-js';

const SHAPE = /^\+[1-9]\d{1,14}$/;

/**
 * Answers already found, by number. libphonenumber's parse costs 10-70 µs on the event loop, and
 * every inbound call asks about the number it dialled (one of the node's own, again and again).
 * Bounded: the oldest answer goes first.
 */
const known = new Map<string, boolean>();
const KNOWN_MAX = 4096;

export function isE164(value: unknown): value is string {
  if (typeof value !== 'string' || !SHAPE.test(value)) return false;
  let possible = known.get(value);
  if (possible === undefined) {
    possible = parsePhoneNumberFromString(value)?.isPossible() ?? false;
    if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
    known.set(value, possible);
  }
  return possible;
}

/**
 * Query strings decode a raw "+" as a space; "+15551234" sent unencoded arrives as " 15551234".
 * Filters accept both forms.
 */
export function e164FromQuery(value: string): string {
  return /^ \d+$/.test(value) ? `+${value.slice(1)}` : value.trim();
}
