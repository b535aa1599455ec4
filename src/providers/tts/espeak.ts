// The embedded local TTS: Debian's espeak-ng, run as `espeak-ng --stdout` with the text on stdin,
// its WAV (16-bit mono, 22050 Hz) read as it is written and converted to the caller's rate. It
// answers when no tts_vendor_1 key is configured, so a fresh install can speak with no account.
import { spawn } from 'node:child_process';
import { Pcm16Reader, RateConverter } from './pcm.js';
import { DEFAULT_TTS_SAMPLE_RATE, TtsError, type TtsProvider, type TtsRequest } from './tts.types.js';
import { WavStreamReader } from './wav.js';

export interface EspeakOptions {
  /** The program; `espeak-ng` on PATH by default. */
  command?: string;
  /** Arguments placed before ours (a test runs a script through node this way). */
  commandArgs?: string[];
  /** Words per minute (espeak-ng's default is 175). */
  wordsPerMinute?: number;
  /** Voice used when the request's voice is not an espeak-ng voice name. */
  defaultVoice?: string;
}

/**
 * An agent's `tts_voice` is usually a vendor voice id, which espeak-ng does not know: only a
 * value shaped like an espeak voice (`en`, `en-us`, `de`, `en+f3`) is used as one; otherwise the
 * request's language picks the voice, then the default.
 */
export function espeakVoice(request: TtsRequest, fallback = 'en'): string {
  if (/^[a-z]{2,3}(-[a-z0-9]{2,8})*(\+[a-z0-9]+)?$/i.test(request.voice)) return request.voice.toLowerCase();
  if (request.language && /^[a-z]{2,3}(-[a-z0-9]{2,8})?$/i.test(request.language))
    return request.language.toLowerCase();
  return fallback;
}

export class EspeakTtsProvider implements TtsProvider {
  /** What actually speaks, for logs: the id stays the one the agent named. */
  readonly engine = 'espeak-ng';

  constructor(
    private readonly options: EspeakOptions = {},
    readonly id = 'tts_vendor_1',
  ) {}

  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    const rate = request.sampleRate ?? DEFAULT_TTS_SAMPLE_RATE;
    request.signal?.throwIfAborted();
    if (!request.text.trim()) return;
    const command = this.options.command ?? 'espeak-ng';
    const args = [
      ...(this.options.commandArgs ?? []),
      '--stdout',
      '-v',
      espeakVoice(request, this.options.defaultVoice),
    ];
    if (this.options.wordsPerMinute) args.push('-s', String(this.options.wordsPerMinute));
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let spawnError: Error | undefined;
    const exited = new Promise<number | null>((resolve) => {
      child.once('error', (err) => {
        spawnError = err;
        resolve(null);
      });
      child.once('close', (code) => resolve(code));
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    const onAbort = () => child.kill('SIGKILL');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // EPIPE when the program is missing or dies early is reported through `exited`.
    child.stdin.on('error', () => {});
    child.stdin.end(request.text);
    try {
      const wav = new WavStreamReader();
      const reader = new Pcm16Reader();
      let converter: RateConverter | undefined;
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        const bytes = wav.push(chunk);
        if (bytes.length === 0) continue;
        const format = wav.format!;
        if (format.audioFormat !== 1 || format.bitsPerSample !== 16 || format.channels !== 1) {
          throw new TtsError(
            `${this.id}: espeak-ng wrote unsupported audio ${JSON.stringify(format)}`,
            this.id,
            'protocol',
          );
        }
        converter ??= new RateConverter(format.sampleRate, rate);
        const pcm = reader.push(bytes);
        if (pcm.length > 0) yield converter.process(pcm);
      }
      const code = await exited;
      request.signal?.throwIfAborted();
      if (spawnError) {
        const missing = (spawnError as NodeJS.ErrnoException).code === 'ENOENT';
        throw new TtsError(
          missing
            ? `${this.id}: ${command} is not installed (apt-get install espeak-ng)`
            : `${this.id}: ${spawnError.message}`,
          this.id,
          'config',
          { cause: spawnError },
        );
      }
      if (code !== 0) {
        throw new TtsError(
          `${this.id}: ${command} exited with ${code}: ${stderr.trim().slice(0, 300)}`,
          this.id,
          'protocol',
        );
      }
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw err;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }
}
