// A workflow's name for the pages that show a record run by it (a call, a session): "Menu", or
// null while it loads or when the workflow is gone.
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
