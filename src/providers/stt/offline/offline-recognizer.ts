// The embedded speech recogniser that stands in for stt_vendor_1 when no key or base URL is
// configured (as espeak-ng stands in for tts_vendor_1): the npm package soundswallower, which is
// PocketSphinx's decoder compiled to WebAssembly with its acoustic models inside the package, so
// `npm install` alone brings it. It decodes whole utterances (cut by audio/vad.ts, see
// utterance-session.ts) against a grammar built for the turn from what the node expects
// (grammar.ts); it has no open-vocabulary language model.
//
// Models: English uses Debian's `pocketsphinx-en-us` acoustic model when that package is installed
// (a 16 kHz model that measured far better on our test audio, see docs/providers.md), else the
// package's own en-us model; French (`stt_language` fr-*) uses the package's fr-fr model.
import { existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SttError } from '../stt.types.js';
import type { UtteranceRecognizer, UtteranceRequest, UtteranceResult } from '../utterance-session.js';
import { DecoderWorker, type DecoderModel } from './decoder-worker.js';
import { buildGrammar } from './grammar.js';

export const DEBIAN_EN_US_DIR = '/usr/share/pocketsphinx/model/en-us';
/** The decoder's rate; the pipeline's audio is at this rate already. */
const MODEL_RATE = 16000;
/**
 * Wide beams for the small per-turn grammars (narrow ones lose words of short answers); narrower
 * ones for the open loop, which with wide beams took longer than real time to decode (measured
 * 1.2-1.7 s per second of audio, against 0.2-0.5 s with these and no loss of accuracy).
 */
const SEARCH = { beam: 1e-80, pbeam: 1e-80, wbeam: 1e-60 };
const OPEN_SEARCH = { beam: 1e-30, pbeam: 1e-30, wbeam: 7e-29 };
/** Debian's feat.params, in the JSON form the package reads. */
const DEBIAN_FEAT_PARAMS = {
  lowerf: 130,
  upperf: 6800,
  nfilt: 25,
  transform: 'dct',
  lifter: 22,
  feat: '1s_c_d_dd',
  svspec: '0-12/13-25/26-38',
  cmn: 'batch',
  varnorm: false,
  cmninit: '41.00,-5.29,-0.12,5.09,2.48,-4.07,-1.37,-1.78,-5.08,-2.05,-6.45,-1.42,1.17',
};

export type OfflineModelName = 'pocketsphinx-en-us' | 'soundswallower-en-us' | 'soundswallower-fr-fr';

export interface OfflineRecognizerOptions {
  /** English model: `auto` (default) takes Debian's when installed. */
  englishModel?: 'auto' | 'pocketsphinx-en-us' | 'soundswallower-en-us';
  /** Where Debian's model lives (tests point elsewhere). */
  debianDir?: string;
}

interface LoadedModel {
  worker: DecoderWorker;
  words: Promise<Set<string>>;
}

function packageDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('soundswallower'));
}

/** Words of a pronunciation dictionary (`word PH ON ES`, alternates as `word(2)`). */
async function dictionaryWords(path: string): Promise<Set<string>> {
  const text = await readFile(path, 'utf8');
  const words = new Set<string>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) words.add(line.slice(0, space).replace(/\(\d+\)$/, ''));
  }
  return words;
}

export class OfflineRecognizer implements UtteranceRecognizer {
  readonly engine = 'soundswallower';
  private readonly models = new Map<OfflineModelName, LoadedModel>();
  private readonly dir = packageDir();
  /** Audio decoded and the decoder thread's time spent on it, for the CPU-per-second figure. */
  readonly stats = { audioMs: 0, decodeMs: 0 };

  constructor(
    private readonly options: OfflineRecognizerOptions = {},
    readonly id = 'stt_vendor_1',
  ) {}

  /** The model a language is decoded with. */
  modelFor(language: string | undefined): OfflineModelName {
    if (language && /^fr\b/i.test(language)) return 'soundswallower-fr-fr';
    const choice = this.options.englishModel ?? 'auto';
    if (choice !== 'auto') return choice;
    return existsSync(join(this.debianDir, 'en-us', 'mdef')) ? 'pocketsphinx-en-us' : 'soundswallower-en-us';
  }

  warm(language?: string): void {
    this.load(this.modelFor(language)).worker.warm();
  }

  async recognize(request: UtteranceRequest): Promise<UtteranceResult> {
    request.signal.throwIfAborted();
    if (request.sampleRate !== MODEL_RATE) {
      throw new SttError(
        `${this.id}: the embedded recogniser takes ${MODEL_RATE} Hz audio`,
        this.id,
        'config',
      );
    }
    const model = this.load(this.modelFor(request.language));
    const words = await model.words;
    const grammar = buildGrammar(request.hints, (w) => words.has(w));
    const open = !request.hints?.digits && !(request.hints?.phrases ?? []).length;
    const samples = Float32Array.from(request.pcm, (v) => v / 32768);
    try {
      const { text, decodeMs } = await model.worker.decode(
        samples,
        grammar,
        open ? OPEN_SEARCH : SEARCH,
        request.signal,
      );
      this.stats.audioMs += (request.pcm.length * 1000) / MODEL_RATE;
      this.stats.decodeMs += decodeMs;
      request.signal.throwIfAborted();
      return { text: text.replace(/\(\d+\)/g, '').trim() };
    } catch (err) {
      if (request.signal.aborted) throw request.signal.reason;
      throw new SttError(
        `${this.id}: the embedded recogniser failed: ${(err as Error).message}`,
        this.id,
        'protocol',
        {
          cause: err,
        },
      );
    }
  }

  /** Utterances waiting for or in a decoder thread, all models together. */
  get backlog(): number {
    let n = 0;
    for (const m of this.models.values()) n += m.worker.backlog;
    return n;
  }

  /** Ends the decoder threads (tests; the service lets them die with the process). */
  async close(): Promise<void> {
    const loaded = [...this.models.values()];
    this.models.clear();
    await Promise.all(loaded.map((m) => m.worker.close()));
  }

  private get debianDir(): string {
    return this.options.debianDir ?? DEBIAN_EN_US_DIR;
  }

  private load(name: OfflineModelName): LoadedModel {
    const existing = this.models.get(name);
    if (existing) return existing;
    const spec = this.modelSpec(name);
    const loaded: LoadedModel = {
      worker: new DecoderWorker(spec.model),
      words: dictionaryWords(spec.dictionary),
    };
    // A failed read shows at the first recognise; an unobserved rejection must not crash before.
    loaded.words.catch(() => {});
    this.models.set(name, loaded);
    return loaded;
  }

  private modelSpec(name: OfflineModelName): { model: DecoderModel; dictionary: string } {
    const moduleUrl = pathToFileURL(join(this.dir, 'soundswallower.node.js')).href;
    const modelBase = join(this.dir, 'model') + '/';
    const base = { loglevel: 'FATAL', samprate: MODEL_RATE };
    if (name === 'pocketsphinx-en-us') {
      const hmm = join(this.debianDir, 'en-us');
      // The package reads feature parameters from a JSON file; Debian ships them as feat.params.
      // One file per process (its content never changes; a second process writes the same).
      const featparams = join(tmpdir(), `switchboard-pocketsphinx-en-us-${process.pid}.json`);
      writeFileSync(featparams, JSON.stringify(DEBIAN_FEAT_PARAMS));
      const dict = join(this.debianDir, 'cmudict-en-us.dict');
      return {
        model: {
          moduleUrl,
          modelBase,
          config: { ...base, hmm, featparams, dict, fdict: join(hmm, 'noisedict') },
        },
        dictionary: dict,
      };
    }
    const folder = name === 'soundswallower-fr-fr' ? 'fr-fr' : 'en-us';
    return {
      model: { moduleUrl, modelBase, config: { ...base, hmm: join(modelBase, folder) } },
      dictionary: join(modelBase, folder, 'dict.txt'),
    };
  }
}
