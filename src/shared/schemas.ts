// Schemas shared by every resource: the error envelope, paging, id params, metadata, variables.
// Resource schema files (modules/*/*.schema.ts) and routes build on them.
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { $id: 'ErrorBody', description: 'The error envelope of every non-2xx response' },
);

export const IdParams = Type.Object({ id: Type.String() });

/** The highest page number a list takes: 10^9 pages of up to 100 items. */
export const MAX_PAGE = 1_000_000_000;

export const PageQuery = {
  // Bounded so the row offset stays an exact integer on both stores (1e308 is an integer too).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1' })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page (default 25)' }),
  ),
};

const Links = Type.Object({
  first: Type.String(),
  last: Type.String(),
  prev: Nullable(Type.String()),
  next: Nullable(Type.String()),
});

const Meta = Type.Object({
  current_page: Type.Integer(),
  from: Nullable(Type.Integer()),
  last_page: Type.Integer(),
  path: Type.String(),
  per_page: Type.Integer(),
  to: Nullable(Type.Integer()),
  total: Type.Integer(),
});

export const Paginated = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), links: Links, meta: Meta });
export const Single = <T extends TSchema>(item: T) => Type.Object({ data: item });

/** Caller-owned metadata: up to 20 keys, string/number/boolean values, echoed verbatim. */
export const Metadata = Type.Record(
  Type.String({ minLength: 1, maxLength: 40 }),
  Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean()]),
  {
    maxProperties: 20,
    description: 'Up to 20 keys (1-40 chars); string (max 500 chars), number or boolean values',
  },
);

/** Free-form variables seeding a workflow. */
export const Variables = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Seed values for workflow variables',
});

export const Timestamp = Type.String({ description: 'UTC ISO 8601, YYYY-MM-DDTHH:MM:SSZ' });

/** The common error responses, for the OpenAPI document. */
export function errorResponses(...codes: number[]): Record<number, typeof ErrorBody> {
  const out: Record<number, typeof ErrorBody> = {};
  for (const c of [401, 403, 429, ...codes]) out[c] = ErrorBody;
  return out;
}
