// Turns a streaming STT session's events into user turns. Pure: no clock, no I/O, so the rules
// are tested event by event.
//
//   interim "I want"          → speech (the caller is talking: barge-in, silence timer restarts)
//   final   "I want a table"  → speech; kept as a span of the turn in progress
//   final   "for two" speechFinal → the turn "I want a table for two" ends at the span's end
//   utterance_end             → ends a turn whose speechFinal never came (noisy lines)
//   speech_started            → speech (voice activity before any word)
//
// A turn the channel cuts itself (the listener's silence timeout) may leave the vendor with words
// it will still finalise; transcripts that start before the cut are then dropped so the next turn
// does not repeat them.
import type { SttEvent } from '../../providers/stt/stt.types.js';

export interface AssembledTurn {
  text: string;
  /** Offset (ms of session audio) where the last word ended. */
  endMs: number;
}

export interface AssemblerStep {
  /** The caller is speaking (voice activity or words): what barge-in listens for. */
  speech: boolean;
  /** A turn that ended with this event. */
  turn: AssembledTurn | null;
}

const QUIET: AssemblerStep = { speech: false, turn: null };

export class TurnAssembler {
  private spans: string[] = [];
  private spansEndMs = 0;
  private interim: { text: string; startMs: number; endMs: number } | null = null;
  private ignoreBeforeMs = -1;

  /** Words have been heard in the turn in progress. */
  get hasWords(): boolean {
    return this.spans.length > 0 || this.interim !== null;
  }

  push(event: SttEvent): AssemblerStep {
    switch (event.type) {
      case 'speech_started':
        return { speech: true, turn: null };
      case 'utterance_end':
        return { speech: false, turn: this.complete(event.lastWordEndMs) };
      case 'transcript': {
        if (event.startMs < this.ignoreBeforeMs) return QUIET;
        const text = event.text.trim();
        const endMs = event.startMs + event.durationMs;
        if (!event.isFinal) {
          if (!text) return QUIET;
          this.interim = { text, startMs: event.startMs, endMs };
          return { speech: true, turn: null };
        }
        // A final span replaces the interim guesses that led to it.
        this.interim = null;
        if (text) {
          this.spans.push(text);
          this.spansEndMs = Math.max(this.spansEndMs, endMs);
        }
        return { speech: text !== '', turn: event.speechFinal ? this.complete(0) : null };
      }
    }
  }

  /**
   * Ends the turn in progress now, with its final spans and the latest interim guess (the best
   * there is of words not finalised yet); `atMs` is the session audio sent so far. Null when no
   * words were heard.
   */
  cut(atMs: number): AssembledTurn | null {
    const turn = this.complete(0);
    this.ignoreBeforeMs = Math.max(this.ignoreBeforeMs, atMs);
    return turn;
  }

  private complete(lastWordEndMs: number): AssembledTurn | null {
    const parts = [...this.spans];
    let endMs = Math.max(this.spansEndMs, lastWordEndMs);
    if (this.interim) {
      parts.push(this.interim.text);
      endMs = Math.max(endMs, this.interim.endMs);
      // Its final form would start where the guess started: that span is in this turn already.
      this.ignoreBeforeMs = Math.max(this.ignoreBeforeMs, this.interim.endMs);
    }
    this.spans = [];
    this.spansEndMs = 0;
    this.interim = null;
    const text = parts.join(' ').replace(/\s+/g, ' ').trim();
    return text ? { text, endMs } : null;
  }
}
