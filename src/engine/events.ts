// The one typed event stream that leaves the engine. The transcript recorder, the usage meter,
// the realtime protocol, webhooks (through the outbox) and tests all read it.
//
// Every event carries `at` (Clock.now(), epoch ms). Delivery is synchronous and in order; a
// listener that throws is isolated so it cannot break the execution.
import type { SessionEndReason } from '../shared/session-end-reasons.js';

export type ExecutionStatus = 'running' | 'completed' | 'failed' | 'transferred' | 'cancelled';

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface ExecutionError {
  /** Stable code: node_error, max_duration_exceeded, step_limit_exceeded, no_edge, … */
  code: string;
  message: string;
}

/** Keys pressed on a keypad as the caller's turn reads in a transcript: "Pressed 1234#". */
export function keypressText(keys: string): string {
  return `Pressed ${keys}`;
}

export type EngineEvent =
  | {
      type: 'execution.started';
      at: number;
      execution_id: string;
      workflow_id?: string;
      workflow_version?: number;
    }
  | { type: 'node.entered'; at: number; node_id: string; node_type: string }
  | { type: 'node.exited'; at: number; node_id: string; node_type: string; handle: string }
  | {
      type: 'message';
      at: number;
      role: MessageRole;
      content: string;
      agent_name?: string;
      /** Assistant messages: end of the user's turn to the first assistant output (ms, fractional). */
      latency_ms?: number;
      /** Assistant messages after a user turn: where that time (and the time to sound) went. */
      latency?: LatencyBreakdown;
      node_id?: string;
    }
  /**
   * The user cut the assistant's last message short (speech, a key or text during its playback):
   * what was said is in the transcript, but not all of it was heard. `heard_chars`: the length of
   * the prefix of it the user heard (ending on a whole word), estimated from the audio sent; absent
   * when not known.
   */
  | { type: 'message.interrupted'; at: number; node_id?: string; heard_chars?: number }
  | { type: 'variables.changed'; at: number; changes: Record<string, unknown>; node_id?: string }
  | {
      type: 'usage';
      at: number;
      llm_input_tokens: number;
      llm_output_tokens: number;
      provider: string;
      model?: string;
    }
  | {
      type: 'dtmf';
      at: number;
      /** What the keypad node saved (keys and spoken digits, without the terminator). */
      digits: string;
      /** The keys pressed on the keypad, in order, the terminator included; absent when none was. */
      keys?: string;
      node_id?: string;
    }
  /** The party a `dial` node bridged pressed a key (shown to a browser; not the workflow's input). */
  | { type: 'dial.dtmf'; at: number; digits: string; call_id: string; node_id?: string }
  | {
      type: 'execution.completed';
      at: number;
      status: 'completed';
      last_node_id: string;
      variables: Record<string, unknown>;
      duration_ms: number;
    }
  | {
      type: 'execution.transferred';
      at: number;
      status: 'transferred';
      last_node_id: string;
      destination: string;
      mode: 'blind' | 'warm';
      variables: Record<string, unknown>;
      duration_ms: number;
    }
  | {
      type: 'execution.failed';
      at: number;
      status: 'failed';
      last_node_id: string | null;
      error: ExecutionError;
      variables: Record<string, unknown>;
      duration_ms: number;
    }
  | {
      type: 'execution.cancelled';
      at: number;
      status: 'cancelled';
      last_node_id: string | null;
      reason: string;
      variables: Record<string, unknown>;
      duration_ms: number;
    }
  | { type: 'session.status'; at: number; status: SessionStatus }
  | {
      type: 'session.ended';
      at: number;
      end_reason: SessionEndReason;
      duration_seconds: number;
    };

/** See session-runtime.ts for the moves between these. */
export type SessionStatus = 'pending' | 'active' | 'ended';

export type { SessionEndReason };

/**
 * One assistant turn's latency, part by part (ms, rounded). Each part is measured between two
 * moments of the turn; a part whose end never happened (no audio on a text line, a barge-in
 * before the first packet) is null.
 *
 *   user stops ─endpointing─► end of turn detected ─stt─► transcript ─llm_first_token─► first
 *   token (or text said) ─tts_first_audio─► first TTS audio ─first_packet─► first packet out
 *
 * latency_ms = endpointing_ms + stt_ms + llm_first_token_ms.
 */
export interface LatencyBreakdown {
  endpointing_ms: number;
  stt_ms: number;
  llm_first_token_ms: number;
  tts_first_audio_ms: number | null;
  first_packet_ms: number | null;
}

export type EngineEventType = EngineEvent['type'];

/** An event before the stream stamps it with the time. */
export type EngineEventInput = EngineEvent extends infer E
  ? E extends { at: number }
    ? Omit<E, 'at'>
    : never
  : never;

export type EngineListener = (event: EngineEvent) => void;

export class EventStream {
  private readonly listeners = new Set<EngineListener>();
  private readonly history: EngineEvent[] | null;

  /** `keepHistory` stores every event (tests, simulations); the live runtime leaves it off. */
  constructor(
    private readonly now: () => number,
    keepHistory = false,
  ) {
    this.history = keepHistory ? [] : null;
  }

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Stamps the event with the time (now, or `at` when the event happened earlier, like the end of
   * a user's turn) and delivers it. The object passed in becomes the event (no copy: this runs
   * several times per node step), so callers pass a fresh literal.
   */
  emit(input: EngineEventInput, at?: number): EngineEvent {
    const event = input as EngineEvent;
    event.at = at ?? this.now();
    this.history?.push(event);
    if (this.listeners.size === 0) return event;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener (a transcript write, a socket) must not stop the call.
      }
    }
    return event;
  }

  get events(): readonly EngineEvent[] {
    return this.history ?? [];
  }
}
