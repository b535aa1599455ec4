// Request and response schemas for /phone-numbers (docs/telephony.md) and the dispatch test. The schemas
// check shapes and enums; formats that need code (HH:MM, IANA zones, E.164, workflow ownership)
// are checked by dispatch-rules.validate.ts and the service, with errors keyed by the same paths.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Variables } from '../../shared/schemas.js';
import { WEEKDAYS, type Weekday } from './dispatch/rule.js';

export const MAX_CALLER_ENTRIES = 500;

const Day = Type.Unsafe<Weekday>({ type: 'string', enum: [...WEEKDAYS] });

const TimeWindowInput = Type.Object(
  {
    days: Type.Array(Day, { description: 'Days the window starts on; non-empty, no repeats' }),
    start: Type.String({ description: '24-hour HH:MM, inclusive' }),
    end: Type.String({
      description: '24-hour HH:MM, exclusive; end before start crosses midnight, end == start is 24 h',
    }),
    timezone: Type.String({ description: 'IANA time zone, e.g. Europe/Berlin' }),
  },
  { additionalProperties: false },
);

const CallerList = Type.Array(Type.String({ maxLength: 16 }), {
  maxItems: MAX_CALLER_ENTRIES,
  description: 'E.164 numbers, +digits prefixes, or "anonymous"',
});

const CallerIdInput = Type.Object(
  { allow: Type.Optional(CallerList), block: Type.Optional(CallerList) },
  { additionalProperties: false },
);

export const DispatchRuleInput = Type.Object(
  {
    workflow_id: Type.String({ minLength: 1 }),
    priority: Type.Optional(Type.Number({ default: 100, description: 'Lower evaluates first; default 100' })),
    time_window: Type.Optional(TimeWindowInput),
    caller_id: Type.Optional(CallerIdInput),
    variables: Type.Optional(Variables),
    record: Type.Optional(Type.Boolean({ default: false, description: 'Record the calls this rule takes' })),
  },
  { additionalProperties: false },
);
export type DispatchRuleInput = Static<typeof DispatchRuleInput>;

export const DispatchRuleView = Type.Object({
  workflow_id: Type.String(),
  priority: Type.Number(),
  time_window: Type.Optional(TimeWindowInput),
  caller_id: Type.Optional(CallerIdInput),
  variables: Variables,
  record: Type.Optional(Type.Boolean()),
});

export const PhoneNumber = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    number: Type.String({ description: 'E.164' }),
    sip_trunk_id: Type.String(),
    project_id: Type.String(),
    label: Nullable(Type.String()),
    dispatch_rules: Type.Array(DispatchRuleView, { description: 'In stored order' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'PhoneNumber' },
);
export type PhoneNumber = Static<typeof PhoneNumber>;

const DispatchRules = Type.Array(DispatchRuleInput, {
  description: 'Replaces the whole list; at most 50 rules; kept and returned in the order given',
});

export const CreatePhoneNumber = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 32, description: 'E.164, e.g. +14155550123' }),
    sip_trunk_id: Type.String({ minLength: 1 }),
    project_id: Type.String({ minLength: 1 }),
    label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    dispatch_rules: Type.Optional(DispatchRules),
  },
  { additionalProperties: false },
);
export type CreatePhoneNumber = Static<typeof CreatePhoneNumber>;

export const UpdatePhoneNumber = Type.Object(
  {
    label: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    project_id: Type.Optional(Type.String({ minLength: 1 })),
    dispatch_rules: Type.Optional(DispatchRules),
  },
  { additionalProperties: false },
);
export type UpdatePhoneNumber = Static<typeof UpdatePhoneNumber>;

export const PhoneNumberQuery = Type.Object({ project_id: Type.Optional(Type.String()) });

export const DispatchTestBody = Type.Object(
  {
    caller: Type.String({ description: 'E.164 caller number, or "anonymous" for a withheld number' }),
    at: Type.Optional(Type.String({ description: 'ISO 8601 instant with Z or an offset; default now' })),
  },
  { additionalProperties: false },
);
export type DispatchTestBody = Static<typeof DispatchTestBody>;

export const DispatchTestResult = Type.Object(
  {
    caller: Type.String(),
    at: Timestamp,
    winner: Nullable(
      Type.Object({
        index: Type.Integer(),
        workflow_id: Type.String(),
        priority: Type.Number(),
        variables: Variables,
      }),
    ),
    rules: Type.Array(
      Type.Object({
        index: Type.Integer({ description: 'Position in dispatch_rules' }),
        workflow_id: Type.String(),
        priority: Type.Number(),
        matched: Type.Boolean(),
        failed_filter: Nullable(Type.String({ enum: ['time_window', 'caller_id'] })),
        reason: Nullable(Type.String()),
      }),
      { description: 'Every rule, in evaluation order (ascending priority, stored order on ties)' },
    ),
  },
  { $id: 'DispatchTestResult' },
);
export type DispatchTestResult = Static<typeof DispatchTestResult>;
