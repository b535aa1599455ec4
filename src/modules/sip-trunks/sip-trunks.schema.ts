// Request and response schemas for /sip-trunks (docs/telephony.md). auth_password is accepted on create
// and update and appears in no response schema, so serialization could not leak it either.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';
import { MAX_ALLOWED_IPS } from './trunk-fields.js';

export const PROVIDERS = ['carrier_a', 'generic'] as const;
export const TRANSPORTS = ['tls', 'udp', 'tcp'] as const;
export const REGISTRATION_STATUSES = ['registering', 'registered', 'failed'] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];
export const TRUNK_HEALTH = ['unknown', 'up', 'down'] as const;
export type TrunkHealth = (typeof TRUNK_HEALTH)[number];
export type Transport = (typeof TRANSPORTS)[number];

const Provider = Type.Unsafe<(typeof PROVIDERS)[number]>({ type: 'string', enum: [...PROVIDERS] });
const TransportField = Type.Unsafe<Transport>({ type: 'string', enum: [...TRANSPORTS] });

export const SipTrunk = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    provider: Type.String({ enum: [...PROVIDERS] }),
    termination_uri: Type.String(),
    auth_username: Type.String(),
    transport: Type.String({ enum: [...TRANSPORTS] }),
    allowed_ips: Type.Array(Type.String()),
    origination_uri: Type.String({ description: 'sip:<workspace label>.<SIP_DOMAIN>;transport=<transport>' }),
    status: Type.String({ enum: ['active'] }),
    register: Type.Boolean({ description: 'Keep a SIP REGISTER binding at the carrier' }),
    registrar_uri: Nullable(
      Type.String({ description: 'Where to register; null: the termination_uri host' }),
    ),
    registration_status: Nullable(
      Type.String({ enum: [...REGISTRATION_STATUSES], description: 'null while register is false' }),
    ),
    registration_error: Nullable(
      Type.String({ description: 'Why the last registration attempt failed; null once registered' }),
    ),
    registered_until: Nullable(
      Type.String({ description: 'When the carrier drops the binding unless refreshed' }),
    ),
    health_check: Type.Boolean({ description: 'Ping the termination host with OPTIONS' }),
    health: Nullable(
      Type.String({ enum: [...TRUNK_HEALTH], description: 'null while health_check is false' }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'SipTrunk' },
);
export type SipTrunk = Static<typeof SipTrunk>;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  provider: Provider,
  termination_uri: Type.String({
    minLength: 1,
    maxLength: 500,
    description:
      'host, host:port, sip:[user@]host[:port][;params] or sips:…; host is a DNS name, IPv4 or [IPv6]',
  }),
  auth_username: Type.String({ minLength: 1, maxLength: 200 }),
  auth_password: Type.String({ minLength: 1, maxLength: 200, description: 'Write-only; never returned' }),
  transport: TransportField,
  allowed_ips: Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: MAX_ALLOWED_IPS,
    description: 'CIDR strings (IPv4 or IPv6); a bare address means /32 or /128; empty admits every source',
  }),
  register: Type.Boolean(),
  registrar_uri: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Same forms as termination_uri; null or absent: the termination_uri host',
    }),
  ),
  health_check: Type.Boolean(),
};

export const CreateSipTrunk = Type.Object(
  {
    ...fields,
    allowed_ips: Type.Optional(fields.allowed_ips),
    register: Type.Optional(fields.register),
    registrar_uri: Type.Optional(fields.registrar_uri),
    health_check: Type.Optional(fields.health_check),
  },
  { additionalProperties: false },
);
export type CreateSipTrunk = Static<typeof CreateSipTrunk>;

export const UpdateSipTrunk = Type.Partial(
  Type.Object({
    name: fields.name,
    termination_uri: fields.termination_uri,
    auth_username: fields.auth_username,
    auth_password: fields.auth_password,
    transport: fields.transport,
    allowed_ips: fields.allowed_ips,
    register: fields.register,
    registrar_uri: fields.registrar_uri,
    health_check: fields.health_check,
  }),
  { additionalProperties: false },
);
export type UpdateSipTrunk = Static<typeof UpdateSipTrunk>;
