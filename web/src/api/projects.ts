// The workspace's projects, for the project pickers and columns of every page (at most 100: a
// picker longer than that would want a search box instead).
import { api, call } from './client';
import { useLoad } from './hooks';
import type { Project } from './types';

export function useProjects() {
  const loaded = useLoad(
    async () => (await call(api.GET('/api/v1/projects', { params: { query: { per_page: 100 } } }))).data,
    [],
  );
  const projects: Project[] = loaded.data ?? [];
  const nameOf = (id: string | null | undefined) =>
    projects.find((p) => p.id === id)?.name ?? (id ? id.slice(0, 8) : '—');
  return { ...loaded, projects, nameOf, options: projects.map((p) => ({ value: p.id, label: p.name })) };
}
