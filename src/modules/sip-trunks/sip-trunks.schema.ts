// Request and response schemas for /sip-trunks (docs/telephony.md). auth_password is accepted on create
// and update and appears in no response schema, so serialization could not leak it either.
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../shared/schemas.js';
import { MAX_ALLOWED_IPS } from './trunk-fields.js';

export const PROVIDERS = ['carrier_a', 'generic'] as const;
export const TRANSPORTS = ['tls', 'udp', 'tcp'] as const;
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
};

export const CreateSipTrunk = Type.Object(
  { ...fields, allowed_ips: Type.Optional(fields.allowed_ips) },
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
  }),
  { additionalProperties: false },
);
export type UpdateSipTrunk = Static<typeof UpdateSipTrunk>;
