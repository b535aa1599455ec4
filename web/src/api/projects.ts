// The workspace's projects, for the project pickers and columns of every page (at most 100: a
// picker longer than that would want a search box instead). Read once and shared by the pages for
// 30 s, so moving between pages does not re-read them each time; the Projects page drops the copy
// whenever it changes one.
import { api, call } from './client';
import { useLoad } from './hooks';
import type { Project } from './types';

const FRESH_MS = 30_000;
let cached: { at: number; projects: Promise<Project[]> } | null = null;

export function invalidateProjects(): void {
  cached = null;
}

function loadProjects(): Promise<Project[]> {
  if (!cached || Date.now() - cached.at > FRESH_MS) {
    const projects = call(api.GET('/api/v1/projects', { params: { query: { per_page: 100 } } })).then(
      (r) => r.data,
    );
    // A failed read is not kept: the next page tries again.
    projects.catch(() => (cached = null));
    cached = { at: Date.now(), projects };
  }
  return cached.projects;
}

export function useProjects() {
  const loaded = useLoad(loadProjects, []);
  const projects: Project[] = loaded.data ?? [];
  const nameOf = (id: string | null | undefined) =>
    projects.find((p) => p.id === id)?.name ?? (id ? id.slice(0, 8) : '—');
  const options = projects.map((p) => ({ value: p.id, label: p.name }));
  return {
    ...loaded,
    projects,
    nameOf,
    options,
    /** The project a create form sends: the one picked, else the first (a workspace often has one). */
    orFirst: (id: string) => id || options[0]?.value || '',
    /** A list page's project filter. */
    filter: { key: 'project_id' as const, label: 'Project', options, anyLabel: 'All projects' },
  };
}

export type Projects = ReturnType<typeof useProjects>;
