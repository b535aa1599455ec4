// E.164 numbers: "+" then 2 to 15 digits, the first not 0, and a length the numbering plan of the
// country code allows (libphonenumber's "possible" check, so test ranges like 555-01xx pass).
import { parsePhoneNumberFromString } from 'libphonenumber-js';

const SHAPE = /^\+[1-9]\d{1,14}$/;

export function isE164(value: unknown): value is string {
  if (typeof value !== 'string' || !SHAPE.test(value)) return false;
  return parsePhoneNumberFromString(value)?.isPossible() ?? false;
}

/**
 * Query strings decode a raw "+" as a space; "+15551234" sent unencoded arrives as " 15551234".
 * Filters accept both forms.
 */
export function e164FromQuery(value: string): string {
  return /^ \d+$/.test(value) ? `+${value.slice(1)}` : value.trim();
}
