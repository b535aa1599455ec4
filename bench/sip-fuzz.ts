// Fuzzes the SIP message layer: random bytes, SIP-shaped noise and mutations of the RFC 4475
// messages go through the parser, the inbound classifier, the error-response builder and the
// stream framer. Anything thrown that is not a SipParseError is a crash.
// Usage: npm run fuzz:sip -- --count 1000000 [--seed 42]
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  SipParseError,
  StreamFramer,
  buildErrorResponse,
  classifyInbound,
  parseMessage,
  serialize,
} from '../src/telephony/sip/message/index.js';

export interface FuzzOptions {
  readonly count: number;
  readonly seed?: number;
  readonly fixturesDir?: string;
  readonly progressEvery?: number;
  readonly onProgress?: (report: FuzzReport) => void;
}

export interface FuzzReport {
  readonly iterations: number;
  readonly parsed: number;
  readonly parseErrors: number;
  readonly crashes: number;
  /** The first few crashing inputs, base64, with the error. */
  readonly samples: ReadonlyArray<{ readonly input: string; readonly error: string }>;
  readonly elapsedMs: number;
}

/** mulberry32: small, fast, and the same sequence for the same seed, so a crash can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'INVITE ',
  'REGISTER ',
  'SIP/2.0',
  'SIP/2.0 200 OK',
  ' ',
  '  ',
  '\r\n',
  '\r\n\r\n',
  '\r\n ',
  '\n',
  '\r',
  'Via: ',
  'v: ',
  'SIP/2.0/UDP ',
  'SIP / 2.0 / TCP ',
  'l: ',
  'Content-Length: ',
  'f: ',
  't: ',
  'm: ',
  'i: ',
  'CSeq: ',
  'Max-Forwards: ',
  'Route: ',
  '<sip:',
  '<sips:',
  'tel:',
  '>',
  ';tag=',
  ';branch=z9hG4bK',
  ';rport',
  ';received=',
  ';lr',
  '"',
  '\\',
  '\\"',
  '%',
  '%4',
  '%00',
  '%zz',
  '@',
  ':',
  ',',
  ';',
  '?',
  '=',
  '&',
  '[::1]',
  '[2001:db8::',
  '192.0.2.1',
  '255.255.255.255',
  '0',
  '65536',
  '99999999999999999999',
  '-1',
  'a',
  'é',
  '\t',
  '\x00',
  '\x7f',
  '*',
  'user',
  'example.com',
  'INVITE',
  'Call-ID: ',
  'Contact: *',
];

/** The RFC 4475 torture messages, and those that parse re-serialized by us. */
function loadSeeds(dir: string): Buffer[] {
  const fixtures = readdirSync(dir)
    .filter((f) => f.endsWith('.dat'))
    .sort()
    .map((f) => readFileSync(resolve(dir, f)));
  // Messages that parse become extra seeds, re-serialized, so mutations also start from our own output.
  const seeds: Buffer[] = [...fixtures];
  for (const f of fixtures) {
    try {
      seeds.push(serialize(parseMessage(f)));
    } catch {
      // torture messages meant to fail stay seeds only in their raw form
    }
  }
  return seeds;
}

/**
 * The three kinds of input, each drawn from `int`: noise (pieces of SIP grammar strung together),
 * random bytes, and a seed with a few random edits.
 */
function inputMakers(int: (n: number) => number, seeds: Buffer[]) {
  const noise = (): Buffer => {
    const parts: string[] = [];
    const n = 1 + int(40);
    for (let i = 0; i < n; i++) parts.push(PIECES[int(PIECES.length)]);
    return Buffer.from(parts.join(''), 'utf8');
  };
  const randomBytes = (): Buffer => {
    const b = Buffer.alloc(int(300));
    for (let i = 0; i < b.length; i++) b[i] = int(256);
    return b;
  };
  const mutate = (src: Buffer): Buffer => {
    let b: Buffer = src;
    const edits = 1 + int(5);
    for (let i = 0; i < edits; i++) {
      const at = int(b.length + 1);
      switch (int(8)) {
        case 0:
          b = Buffer.from(b);
          if (b.length > 0) b[Math.min(at, b.length - 1)] = int(256);
          break;
        case 1:
          b = Buffer.concat([b.subarray(0, at), Buffer.from([int(256)]), b.subarray(at)]);
          break;
        case 2:
          b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + int(8))]);
          break;
        case 3: {
          const from = int(b.length + 1);
          b = Buffer.concat([b.subarray(0, at), b.subarray(from, from + int(64)), b.subarray(at)]);
          break;
        }
        case 4:
          b = Buffer.concat([b.subarray(0, at), Buffer.from(PIECES[int(PIECES.length)]), b.subarray(at)]);
          break;
        case 5:
          b = b.subarray(0, at);
          break;
        case 6: {
          const other = seeds[int(seeds.length)];
          b = Buffer.concat([b.subarray(0, at), other.subarray(int(other.length + 1))]);
          break;
        }
        default: {
          // Swap two lines: header order and start-line position matter to the grammar.
          const lines = b.toString('latin1').split('\r\n');
          const i1 = int(lines.length);
          const i2 = int(lines.length);
          [lines[i1], lines[i2]] = [lines[i2], lines[i1]];
          b = Buffer.from(lines.join('\r\n'), 'latin1');
        }
      }
    }
    return b;
  };
  return { noise, randomBytes, mutate };
}

export function runFuzz(options: FuzzOptions): FuzzReport {
  const rnd = prng(options.seed ?? 0x5eed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const dir = options.fixturesDir ?? resolve(process.cwd(), 'test/fixtures/rfc4475');
  const seeds = loadSeeds(dir);
  const { noise, randomBytes, mutate } = inputMakers(int, seeds);

  let parsed = 0;
  let parseErrors = 0;
  let crashes = 0;
  const samples: Array<{ input: string; error: string }> = [];
  const every = options.progressEvery ?? 100_000;
  const started = performance.now();
  const report = (iterations: number): FuzzReport => ({
    iterations,
    parsed,
    parseErrors,
    crashes,
    samples,
    elapsedMs: performance.now() - started,
  });

  for (let i = 1; i <= options.count; i++) {
    const kind = int(10);
    const input = kind === 0 ? randomBytes() : kind <= 2 ? noise() : mutate(seeds[int(seeds.length)]);
    try {
      let error: SipParseError | undefined;
      try {
        parseMessage(input);
        parsed++;
      } catch (e) {
        if (!(e instanceof SipParseError)) throw e;
        parseErrors++;
        error = e;
      }
      if (error) {
        if (error.action === 'respond') buildErrorResponse(error, error.status, error.reason);
      } else {
        // Parsed input goes on through validation and, where it is refused, the error response.
        const verdict = classifyInbound(input);
        if (verdict.action === 'respond') {
          buildErrorResponse(verdict.request ?? verdict.error!, verdict.status, verdict.reason, {
            headers: verdict.headers,
          });
        }
      }
      if (i % 4 === 0) {
        const framer = new StreamFramer();
        try {
          for (const frame of framer.push(input)) {
            if (frame.kind === 'message') classifyInbound(frame.bytes, { stream: true });
          }
        } catch (e) {
          if (!(e instanceof SipParseError)) throw e;
          buildErrorResponse(e, e.status, e.reason);
        }
      }
    } catch (e) {
      crashes++;
      if (samples.length < 5)
        samples.push({ input: input.toString('base64'), error: String((e as Error)?.stack ?? e) });
    }
    if (i % every === 0) options.onProgress?.(report(i));
  }
  return report(options.count);
}

function main(argv: readonly string[]): void {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const count = Number(arg('--count') ?? 1_000_000);
  const seed = Number(arg('--seed') ?? 0x5eed);
  const line = (r: FuzzReport): string =>
    `${r.iterations} iterations: ${r.parsed} parsed, ${r.parseErrors} parse errors, ${r.crashes} crashes, ` +
    `${Math.round(r.iterations / (r.elapsedMs / 1000))}/s`;
  const result = runFuzz({ count, seed, onProgress: (r) => console.log(line(r)) });
  console.log(`done: ${line(result)} (seed ${seed})`);
  for (const s of result.samples) console.log(`crash input (base64) ${s.input}\n${s.error}`);
  process.exitCode = result.crashes > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  main(process.argv.slice(2));
