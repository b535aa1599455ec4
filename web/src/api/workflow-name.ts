// Workflow names for the pages that show records run by a workflow (calls, sessions): "Menu", or
// null while they load, when the workflow is gone, or when they could not be read (the page still
// shows the version); and a project's workflows for the pickers that start one.
import { api, call } from './client';
import { useLoad } from './hooks';

export function useWorkflowName(id: string | null | undefined): string | null {
  const loaded = useLoad(
    async () =>
      id ? (await call(api.GET('/api/v1/workflows/{id}', { params: { path: { id } } }))).data.name : null,
    [id],
  );
  return loaded.data ?? null;
}

/** The workspace's workflows by id (the first 100), for a list's Workflow column. */
export function useWorkflowNames(): { nameOf(id: string | null | undefined): string | null } {
  const loaded = useLoad(async () => {
    const list = (await call(api.GET('/api/v1/workflows', { params: { query: { per_page: 100 } } }))).data;
    return new Map(list.map((w) => [w.id, w.name]));
  }, []);
  return { nameOf: (id) => (id ? (loaded.data?.get(id) ?? null) : null) };
}

/** The workflows of a project (its first 100, for a picker); none while there is no project. */
export function useProjectWorkflows(projectId: string | undefined) {
  return useLoad(
    async () =>
      projectId
        ? (
            await call(
              api.GET('/api/v1/workflows', { params: { query: { project_id: projectId, per_page: 100 } } }),
            )
          ).data
        : [],
    [projectId],
  );
}

/** "Menu · v2", "v2" while the name is unknown, or null when no workflow ran. */
export function workflowLabel(name: string | null, version: number | null | undefined): string | null {
  const v = version ? `v${version}` : null;
  return [name, v].filter(Boolean).join(' · ') || null;
}
