// Typed field checks for one node's config, reporting findings under the bare config key. Each
// returns the value when it is usable so that rules can go on checking what it means.

import { VARIABLE_NAME } from './validate-shared.js';
import type { Findings } from './validate-shared.js';
import type { GraphNode } from './graph.types.js';

export class ConfigFields {
  constructor(
    readonly node: GraphNode,
    readonly out: Findings,
  ) {}

  get config(): Record<string, unknown> {
    return this.node.config;
  }

  error(field: string, message: string): void {
    this.out.error(this.node.id, field, message);
  }

  warning(field: string, message: string): void {
    this.out.warning(this.node.id, field, message);
  }

  has(key: string): boolean {
    return this.config[key] !== undefined;
  }

  /** A non-empty string; missing or empty is an error when required. */
  string(key: string, required: boolean, what = key): string | undefined {
    const value = this.config[key];
    if (value === undefined || value === null) {
      if (required) this.error(key, `\`${key}\` is required (${what}).`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.error(key, `\`${key}\` must be a string (${what}).`);
      return undefined;
    }
    if (value.trim() === '') {
      if (required) this.error(key, `\`${key}\` must not be empty (${what}).`);
      return undefined;
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.config[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') this.error(key, `\`${key}\` must be true or false.`);
    return typeof value === 'boolean' ? value : undefined;
  }

  /** A timeout or duration in seconds: a number greater than zero. */
  seconds(key: string): number | undefined {
    const value = this.config[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      this.error(key, `\`${key}\` must be a positive number of seconds.`);
      return undefined;
    }
    return value;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const value = this.config[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.error(key, `\`${key}\` must be a whole number from ${min} to ${max}.`);
      return undefined;
    }
    return value;
  }

  /** A variable name to write (`save_to_variable` and the like). */
  variableName(key: string, required: boolean): string | undefined {
    const value = this.string(key, required, 'the variable to save to');
    if (value === undefined) return undefined;
    if (!VARIABLE_NAME.test(value)) {
      this.error(key, variableNameMessage(key, value));
      return undefined;
    }
    return value;
  }

  record(key: string, required: boolean): Record<string, unknown> | undefined {
    const value = this.config[key];
    if (value === undefined) {
      if (required) this.error(key, `\`${key}\` is required.`);
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.error(key, `\`${key}\` must be an object.`);
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  array(key: string, required: boolean): unknown[] | undefined {
    const value = this.config[key];
    if (value === undefined) {
      if (required) this.error(key, `\`${key}\` is required.`);
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.error(key, `\`${key}\` must be an array.`);
      return undefined;
    }
    return value;
  }
}

export function variableNameMessage(field: string, value: string): string {
  return `'${value}' is not a valid variable name for \`${field}\`: use letters, digits and _, not starting with a digit, at most 64 characters.`;
}
