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
  Type.Object({
    join_token: Type.String(),
    join_token_expires_at: Timestamp,
    realtime_url: Type.String(),
    join_url: Type.String({
      description: '{PUBLIC_BASE_URL}/join#token=<join_token>: the browser call page',
    }),
  }),
]);

/** GET /join-info: what a browser holding a join token needs to join (never the token again). */
export const JoinInfo = Type.Object(
  {
    session_id: Type.String(),
    status: Type.String(),
    end_reason: Nullable(Type.String()),
    realtime_url: Type.String(),
    join_token_expires_at: Timestamp,
    ice_servers: Type.Array(
      Type.Object({
        urls: Type.Union([Type.String(), Type.Array(Type.String())]),
        username: Type.Optional(Type.String()),
        credential: Type.Optional(Type.String()),
      }),
      { description: 'WEBRTC_ICE_SERVERS: RTCIceServer objects for the peer connection' },
    ),
  },
  { $id: 'JoinInfo' },
);

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
