// Typed reads of a node's `config` object. Published graphs passed the validator, but drafts run
// in simulations too, so a wrong type fails the node with a clear message instead of misbehaving.
import { NodeError } from '../node-types.js';

type Config = Record<string, unknown>;

function bad(field: string, expected: string): NodeError {
  return new NodeError('invalid_config', `Config field "${field}" must be ${expected}.`);
}

export function optString(config: Config, field: string): string | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(field, 'a string');
  return v;
}

export function reqString(config: Config, field: string): string {
  const v = optString(config, field);
  if (v === undefined || v === '') throw bad(field, 'a non-empty string');
  return v;
}

export function optNumber(config: Config, field: string): number | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(field, 'a number');
  return v;
}

export function optBoolean(config: Config, field: string): boolean | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw bad(field, 'true or false');
  return v;
}

export function optRecord(config: Config, field: string): Record<string, unknown> | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(field, 'an object');
  return v as Record<string, unknown>;
}

export function optArray(config: Config, field: string): unknown[] | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw bad(field, 'an array');
  return v;
}

/** Seconds from config to ms, with a default; non-positive values fall back to the default. */
export function secondsToMs(config: Config, field: string, fallbackSeconds: number): number {
  const s = optNumber(config, field);
  return (s !== undefined && s > 0 ? s : fallbackSeconds) * 1000;
}
