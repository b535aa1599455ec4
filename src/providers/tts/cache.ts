// Rendered prompts, kept. A phone line says the same greeting and menu on every call; running
// espeak-ng (or paying the vendor) for each is waste, and at tens of calls a second the local
// engine's processes would eat the CPU the media needs. This wrapper streams a miss through as it
// is synthesised and keeps the audio when the synthesis finished whole; later requests with the
// same voice, language, rate and text are played from memory. Least recently used entries go
// first once the byte budget is spent. Aborted or failed syntheses are never stored.
import { openSpan } from '../../shared/tracing.js';
import { DEFAULT_TTS_SAMPLE_RATE, type TtsProvider, type TtsRequest } from './tts.types.js';

export interface TtsCacheOptions {
  /** Total PCM bytes kept (default 32 MiB: about 17 minutes of 16 kHz speech). */
  maxBytes?: number;
  /** Larger renderings are streamed but not kept (default 2 MiB: about a minute). */
  maxEntryBytes?: number;
}

export class CachingTtsProvider implements TtsProvider {
  private readonly entries = new Map<string, Int16Array>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  /** Requests answered from memory, for logs and tests. */
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: TtsProvider,
    options: TtsCacheOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.maxEntryBytes = Math.min(options.maxEntryBytes ?? 2 * 1024 * 1024, this.maxBytes);
  }

  get id(): string {
    return this.inner.id;
  }

  /** Bytes of PCM held now. */
  get size(): number {
    return this.bytes;
  }

  async *synthesize(request: TtsRequest): AsyncGenerator<Int16Array> {
    // Every synthesis a node asks for passes here, cached or not: its span under the node's.
    const span = openSpan('tts.synthesize', { 'switchboard.tts.characters': request.text.length });
    try {
      yield* this.synthesizeCached(request, (hit) => span.set({ 'switchboard.tts.cache_hit': hit }));
    } catch (err) {
      span.fail(err);
      throw err;
    } finally {
      span.end();
    }
  }

  private async *synthesizeCached(
    request: TtsRequest,
    hit: (hit: boolean) => void,
  ): AsyncGenerator<Int16Array> {
    request.signal?.throwIfAborted();
    const key = keyOf(request);
    const cached = this.entries.get(key);
    hit(cached !== undefined);
    if (cached) {
      this.hits++;
      // Refresh its place in the LRU order (a Map iterates in insertion order).
      this.entries.delete(key);
      this.entries.set(key, cached);
      // In one piece: the media queues it whole and paces it out (a stop clears the queue at once),
      // so chunks would only multiply the hand-offs (each one a message to the media worker).
      yield cached;
      return;
    }
    this.misses++;
    const chunks: Int16Array[] = [];
    let bytes = 0;
    for await (const chunk of this.inner.synthesize(request)) {
      if (bytes <= this.maxEntryBytes) {
        // Copy: a provider may reuse the buffer behind the chunk it yielded.
        chunks.push(chunk.slice());
        bytes += chunk.byteLength;
      }
      yield chunk;
    }
    // Reached only when the synthesis ended normally and the consumer read it all.
    if (request.signal?.aborted || bytes > this.maxEntryBytes || bytes === 0) return;
    this.store(key, concat(chunks, bytes / 2));
  }

  private store(key: string, pcm: Int16Array): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.byteLength;
    }
    this.entries.set(key, pcm);
    this.bytes += pcm.byteLength;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }
}

function keyOf(r: TtsRequest): string {
  return [r.voice, r.language ?? '', r.sampleRate ?? DEFAULT_TTS_SAMPLE_RATE, r.text].join('\u0000');
}

function concat(chunks: Int16Array[], samples: number): Int16Array {
  const out = new Int16Array(samples);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
