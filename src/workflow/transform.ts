// The `transform` node's operations: each turns one string into another, with no I/O, so the
// engine, the simulator and the validator share one definition. A value that cannot be converted
// becomes the empty string rather than an error, so a flow can branch on it with a condition.

import { extractDigits } from './spoken-digits.js';

export const TRANSFORM_OPERATIONS = [
  'extract_digits',
  'digits_only',
  'lowercase',
  'uppercase',
  'trim',
  'collapse_whitespace',
  'e164',
] as const;

export type TransformOperation = (typeof TRANSFORM_OPERATIONS)[number];

const OPERATION_SET: ReadonlySet<string> = new Set(TRANSFORM_OPERATIONS);

export function isTransformOperation(value: unknown): value is TransformOperation {
  return typeof value === 'string' && OPERATION_SET.has(value);
}

/** Throws on an unknown operation (the validator refuses those before a workflow can run). */
export function applyTransform(operation: string, input: string): string {
  switch (operation) {
    case 'extract_digits':
      return extractDigits(input);
    case 'digits_only':
      return input.replace(/[^0-9]/g, '');
    case 'lowercase':
      return input.toLowerCase();
    case 'uppercase':
      return input.toUpperCase();
    case 'trim':
      return input.trim();
    case 'collapse_whitespace':
      return input.replace(/\s+/g, ' ').trim();
    case 'e164':
      return toE164(input);
    default:
      throw new Error(`Unknown transform operation: ${operation}`);
  }
}

/**
 * A typed or spoken phone number as E.164, or '' when it cannot be decided. Rules: a leading `+`,
 * `00` or the word "plus" marks an international number (8 to 15 digits, no leading zero); else
 * ten digits are a North American number (+1), as are eleven starting with 1. North American area
 * codes and exchanges start with 2-9, which catches most misheard numbers.
 */
export function toE164(input: string): string {
  const text = input.trim().toLowerCase();
  const international = /^(\+|plus\b|00)/.test(text);
  let digits = extractDigits(text);
  if (international) {
    if (text.startsWith('00')) digits = digits.slice(2);
    return /^[1-9][0-9]{7,14}$/.test(digits) ? `+${digits}` : '';
  }
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  return /^[2-9][0-9]{2}[2-9][0-9]{6}$/.test(digits) ? `+1${digits}` : '';
}
