import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';

/** The draft graph: the envelope of workflow/graph.types.ts. Drafts may be incomplete; validate/publish judge them. */
export const GraphBody = Type.Object(
  {
    nodes: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 2000 }),
    edges: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 10000 }),
  },
  { additionalProperties: true, description: 'Workflow graph, schema_version 1 (see GET /workflow-schema)' },
);

export const Workflow = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    name: Type.String(),
    graph: Type.Unknown(),
    published_version: Nullable(Type.Integer()),
    published_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Workflow' },
);
export type Workflow = Static<typeof Workflow>;

export const CreateWorkflow = Type.Object(
  {
    project_id: Type.String(),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    graph: Type.Optional(GraphBody),
  },
  { additionalProperties: false },
);
export type CreateWorkflow = Static<typeof CreateWorkflow>;

export const UpdateWorkflow = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), graph: Type.Optional(GraphBody) },
  { additionalProperties: false },
);
export type UpdateWorkflow = Static<typeof UpdateWorkflow>;

export const Finding = Type.Object({ node_id: Type.String(), field: Type.String(), message: Type.String() });

export const ValidationResultSchema = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Finding),
  warnings: Type.Array(Finding),
});

/** A published version number, as stored (a 32-bit integer column on PostgreSQL). */
export const VersionNumber = (description?: string) =>
  Type.Integer({ minimum: 1, maximum: 2_147_483_647, ...(description ? { description } : {}) });

export const PublishBody = Type.Union([
  Type.Object({ version: Type.Optional(VersionNumber()) }, { additionalProperties: false }),
  Type.Null(),
]);

export const Published = Type.Object({
  id: Type.String(),
  name: Type.String(),
  published_version: Type.Integer(),
  published_at: Timestamp,
});

export const VersionItem = Type.Object({
  version: Type.Integer(),
  published_at: Timestamp,
  published_by: Type.String(),
  schema_version: Type.Integer(),
});
export type VersionItem = Static<typeof VersionItem>;

export const VersionDetail = Type.Object({
  workflow_id: Type.String(),
  version: Type.Integer(),
  published_at: Timestamp,
  published_by: Type.String(),
  schema_version: Type.Integer(),
  graph: Type.Unknown(),
});
