// Value semantics of the expression language: truthiness, numeric coercion, equality and ordering.
// Variables often arrive as text (DTMF digits, rendered set_variables), so a string that spells a
// number is treated as that number wherever a number is expected.

import { valueToText } from './paths.js';

const NUMERIC = /^\s*-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*$/;

/** The number a value stands for, or null when it is not numeric. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && NUMERIC.test(value)) return Number(value);
  return null;
}

export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

export function toText(value: unknown): string {
  return valueToText(value);
}

/** `==`: numbers compare numerically with numeric strings; otherwise same type and value. */
export function looseEquals(a: unknown, b: unknown): boolean {
  const left = a === undefined ? null : a;
  const right = b === undefined ? null : b;
  if (left === null || right === null) return left === right;
  if (typeof left === 'number' || typeof right === 'number') {
    const x = toNumber(left);
    const y = toNumber(right);
    return x !== null && y !== null && x === y;
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, i) => looseEquals(item, right[i]));
  }
  return left === right;
}

/** Ordering for `< <= > >=`: numeric when both sides are numeric, text when both are strings. */
export function compareValues(a: unknown, b: unknown): number | null {
  const x = toNumber(a);
  const y = toNumber(b);
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

/** `in` and contains(): membership in a list, or substring of a text. */
export function containsValue(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) return haystack.some((item) => looseEquals(item, needle));
  if (typeof haystack === 'string') return haystack.includes(toText(needle));
  return false;
}
