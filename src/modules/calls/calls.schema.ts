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
    recording_url: Nullable(
      Type.String({ description: 'GET it for the 2-channel WAV (left: the far party, right: the service)' }),
    ),
    recording_error: Nullable(
      Type.String({ description: 'Why a requested recording is absent (the call went on without it)' }),
    ),
    answered_by: Nullable(
      Type.String({ description: 'human, machine or unknown, with machine_detection; else null' }),
    ),
    parent_call_id: Nullable(
      Type.String({
        description:
          'For a leg dialled by a workflow (Dial node, warm transfer): the call it was dialled from',
      }),
    ),
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
    record: Type.Optional(
      Type.Boolean({ default: false, description: 'Record the call (GET /calls/{id}/recording)' }),
    ),
    machine_detection: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Detect an answering machine on answer: answered_by, within 4 s, before the workflow speaks',
      }),
    ),
    wait_for_beep: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'With machine_detection: on a machine, start the workflow after the voicemail beep',
      }),
    ),
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
  parent_call_id: Type.Optional(
    Type.String({ description: 'The legs a workflow dialled from this call (Dial node, warm transfer)' }),
  ),
};
