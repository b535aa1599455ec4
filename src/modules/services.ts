// Builds every service once per process from the shared dependencies.
import { ApiKeysService } from './api-keys/api-keys.service.js';
import type { ServiceDeps } from './context.js';
import { ProjectsService } from './projects/projects.service.js';

export interface Services {
  projects: ProjectsService;
  apiKeys: ApiKeysService;
}

/** Parts a test or a role may replace. */
export type ServiceOverrides = Partial<Record<string, unknown>>;

export function createServices(deps: ServiceDeps, _overrides?: ServiceOverrides): Services {
  return {
    projects: new ProjectsService(deps),
    apiKeys: new ApiKeysService(deps),
  };
}
