import { Type, type Static } from '@sinclair/typebox';
import { Metadata, Nullable, Timestamp, Variables } from '../../shared/schemas.js';

export const CALL_STATUSES = [
  'queued',
  'ringing',
  'in_progress',
  'completed',
  'no_answer',
  'busy',
  'failed',
  'cancelled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const FINAL_CALL_STATUSES: readonly CallStatus[] = [
  'completed',
  'no_answer',
  'busy',
  'failed',
  'cancelled',
];
export const LIVE_CALL_STATUSES: readonly CallStatus[] = ['queued', 'ringing', 'in_progress'];

export const Call = Type.Object(
  {
    id: Type.String(),
    direction: Type.String(),
    status: Type.String(),
    from: Type.String(),
    to: Type.String(),
    project_id: Type.String(),
    workflow_id: Nullable(Type.String()),
    workflow_version: Nullable(Type.Integer()),
    session_id: Nullable(Type.String()),
    duration_seconds: Nullable(Type.Integer()),
    hangup_reason: Nullable(Type.String()),
    metadata: Metadata,
    started_at: Nullable(Timestamp),
    ended_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'Call' },
);
export type Call = Static<typeof Call>;

export const CreateCall = Type.Object(
  {
    project_id: Type.String(),
    workflow_id: Type.String(),
    from: Type.String({ description: 'A registered number of the project, E.164' }),
    to: Type.String({ description: 'Destination, E.164' }),
    variables: Type.Optional(Variables),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateCall = Static<typeof CreateCall>;

export const CallListQuery = {
  project_id: Type.Optional(Type.String()),
  direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')])),
  status: Type.Optional(Type.Union(CALL_STATUSES.map((s) => Type.Literal(s)))),
  from: Type.Optional(Type.String({ description: 'Exact E.164 number (encode + as %2B)' })),
  to: Type.Optional(Type.String({ description: 'Exact E.164 number (encode + as %2B)' })),
};
