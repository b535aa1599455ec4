import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp } from '../../shared/schemas.js';

// Checked in the service (a real calendar date, from_date <= to_date); the schema documents them.
const DateFilter = (description: string) =>
  Type.Optional(Type.String({ description, examples: ['2026-11-01'] }));

export const ConversationListQuery = Type.Object({
  ...PageQuery,
  project_id: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  from_date: DateFilter('Created on or after this UTC date (YYYY-MM-DD, inclusive)'),
  to_date: DateFilter('Created on or before this UTC date (YYYY-MM-DD, inclusive)'),
});
export type ConversationListQuery = Static<typeof ConversationListQuery>;

const part = (description: string) => Type.Integer({ minimum: 0, description });
const laterPart = (description: string) => Nullable(Type.Integer({ minimum: 0, description }));

export const MessageLatency = Type.Object(
  {
    endpointing_ms: part("End of the user's speech to the end of their turn being detected"),
    stt_ms: part('End of turn detected to the final transcript'),
    llm_first_token_ms: part('Final transcript to the first token of the model (or the text being said)'),
    tts_first_audio_ms: laterPart('First token to the first synthesised audio; null without audio'),
    first_packet_ms: laterPart('First synthesised audio to the first packet sent; null without audio'),
  },
  {
    $id: 'MessageLatency',
    description:
      "Where an assistant turn's latency went; latency_ms = endpointing_ms + stt_ms + llm_first_token_ms. Null on messages without latency_ms.",
  },
);

export type MessageLatency = Static<typeof MessageLatency>;

export const Message = Type.Object(
  {
    sequence: Type.Integer(),
    role: Type.String({ description: 'user, assistant, system or tool' }),
    content: Type.String(),
    agent_name: Type.Optional(
      Nullable(
        Type.String({
          description:
            'Present on every message when two or more agents spoke in the conversation (null on messages no agent wrote); absent otherwise',
        }),
      ),
    ),
    spoken_at: Timestamp,
    latency_ms: Nullable(Type.Integer({ description: 'Assistant turns: end of user turn to first output' })),
    latency: Nullable(MessageLatency),
    interrupted: Type.Boolean({
      description:
        'Assistant messages: true when the user cut it short (speech, a key or text during its playback), so not all of content was heard',
    }),
    heard_chars: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'Interrupted messages: the user heard the first heard_chars characters of content (ending on a whole word), an estimate from the share of its audio played; null when not known (not interrupted, text sessions, or speech still being made when cut short)',
      }),
    ),
  },
  { $id: 'Message' },
);
export type Message = Static<typeof Message>;

export const ConversationStep = Type.Object(
  {
    node_id: Type.String(),
    node_type: Type.String({ description: 'The node type (say, dtmf, agent, transfer, …)' }),
    entered_at: Timestamp,
    exited_at: Nullable(
      Type.String({ description: 'UTC ISO 8601, YYYY-MM-DDTHH:MM:SSZ; null while the step runs' }),
    ),
    handle: Nullable(
      Type.String({
        description: 'The exit the step left by; null while it runs or when the execution ended inside it',
      }),
    ),
    keys: Nullable(
      Type.String({ description: 'Keys the caller pressed in this step, in order, the terminator included' }),
    ),
    transfer: Nullable(
      Type.Object({
        destination: Type.String(),
        mode: Type.String({ description: 'blind or warm' }),
      }),
    ),
    error: Nullable(Type.String({ description: 'Why the execution failed in this step' })),
  },
  {
    $id: 'ConversationStep',
    description: "One workflow node the conversation's session went through, in the order entered",
  },
);
export type ConversationStep = Static<typeof ConversationStep>;

export const Conversation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    project_id: Type.String(),
    session_id: Type.String(),
    message_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Conversation' },
);
export type Conversation = Static<typeof Conversation>;

export const ConversationWithMessages = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    project_id: Type.String(),
    session_id: Type.String(),
    message_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
    messages: Type.Array(Message),
    steps: Type.Array(ConversationStep, {
      description: 'The workflow nodes the session went through (the first 200), in the order entered',
    }),
  },
  { $id: 'ConversationWithMessages' },
);
export type ConversationWithMessages = Static<typeof ConversationWithMessages>;
