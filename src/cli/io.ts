// What every command shares: where output goes, how a failure becomes an exit status, and strict
// flag parsing. Commands are functions of (argv, io) returning an exit status, so tests run them
// in process with captured output; only main.ts touches the real process.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CliIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
}

/** Exit statuses: 0 success, 1 the command failed, 2 it was called wrongly. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A failure the operator can act on; its message becomes the one line on stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/** Strict parseArgs (no unknown flags, no positionals); mistakes become UsageError. */
export function parseFlags<T extends FlagSpec>(argv: string[], options: T, command: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean' } }, strict: true })
      .values as { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string } & { help?: boolean };
  } catch (err) {
    // `--calls -1`: parseArgs reads "-1" as a flag and calls the value ambiguous; say what to write.
    const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec((err as Error).message);
    if (ambiguous) {
      const flag = ambiguous[1]!;
      const value = argv[argv.indexOf(flag) + 1] ?? '-…';
      throw new UsageError(
        `${command}: ${flag} ${value}: a value starting with "-" is written ${flag}=${value}`,
      );
    }
    const first = (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${command}: ${first} (see switchboard ${command} --help)`);
  }
}

export function required(value: string | undefined, flag: string, command: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${command}: --${flag} is required`);
  return value.trim();
}

/** A whole number >= 0 for an allowance flag. */
export function wholeNumber(value: string, flag: string, command: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${command}: --${flag} must be a whole number >= 0, got "${value}"`);
  }
  return Number(value);
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printLine(io: CliIo, line: string): void {
  io.stdout.write(`${line}\n`);
}

export function showHelp(io: CliIo, text: string): number {
  printLine(io, text);
  return EXIT_OK;
}
