// The project picker of a create or edit form: named `project_id` as the API's errors name it, and
// showing the first project until one is picked (what the form sends, see `orFirst`).
import type { Projects } from '../api/projects';
import { SelectField } from './fields';

export function ProjectField({
  projects,
  value,
  onChange,
  disabled,
  hint,
}: {
  projects: Projects;
  value: string;
  onChange: (projectId: string) => void;
  disabled?: boolean;
  hint?: string;
}) {
  return (
    <SelectField
      name="project_id"
      label="Project"
      value={projects.orFirst(value)}
      onChange={onChange}
      options={projects.options}
      disabled={disabled}
      hint={hint}
    />
  );
}
