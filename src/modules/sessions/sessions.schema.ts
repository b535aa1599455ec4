import { Type, type Static } from '@sinclair/typebox';
import { Metadata, Nullable, Timestamp, Variables } from '../../shared/schemas.js';

export const SESSION_CHANNELS = ['web', 'phone', 'test'] as const;
/** pending: minted, nobody joined yet; active: running; ended: over (see end_reason). */
export const SESSION_STATUSES = ['pending', 'active', 'ended'] as const;

export const Session = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    workflow_id: Type.String(),
    workflow_version: Type.Integer(),
    channel: Type.String(),
    status: Type.String(),
    call_id: Nullable(Type.String()),
    metadata: Metadata,
    end_reason: Nullable(Type.String()),
    duration_seconds: Nullable(Type.Integer()),
    started_at: Nullable(Timestamp),
    ended_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'Session' },
);
export type Session = Static<typeof Session>;

export const MintedSession = Type.Intersect([
  Session,
  Type.Object({ join_token: Type.String(), join_token_expires_at: Timestamp, realtime_url: Type.String() }),
]);

export const CreateSession = Type.Object(
  {
    project_id: Type.String(),
    workflow_id: Type.String(),
    variables: Type.Optional(Variables),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateSession = Static<typeof CreateSession>;

export const SessionListQuery = {
  project_id: Type.Optional(Type.String()),
  channel: Type.Optional(Type.Union(SESSION_CHANNELS.map((c) => Type.Literal(c)))),
  status: Type.Optional(Type.Union(SESSION_STATUSES.map((c) => Type.Literal(c)))),
};
