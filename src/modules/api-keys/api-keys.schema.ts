import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';
import { SCOPES } from './scopes.js';

export const ApiKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    prefix: Type.String(),
    scopes: Type.Array(Type.String()),
    last_used_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreatedApiKey = Type.Intersect([ApiKey, Type.Object({ key: Type.String() })]);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type CreateApiKey = Static<typeof CreateApiKey>;
