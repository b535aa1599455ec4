import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../shared/schemas.js';

export const Project = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

export const CreateProject = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);
export type CreateProject = Static<typeof CreateProject>;

export const UpdateProject = Type.Partial(CreateProject, { additionalProperties: false });
export type UpdateProject = Static<typeof UpdateProject>;
