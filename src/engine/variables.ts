// The execution's variables: one plain object (templates and expressions read it directly, which
// keeps a node step cheap) plus change events. Seeding order, later layers winning:
//
//   1. the dispatch rule's `variables` (phone calls only)
//   2. the session's or call's `variables` (POST /sessions, POST /calls, a simulation's body)
//   3. system variables (below): set by the service, so a seed can never spoof them
//
// System variables: session_id, call_id, channel (test|web|phone), caller, callee, workflow_id,
// workflow_version, project_id, workspace_id, execution_id, started_at (ISO timestamp). Absent
// ones (e.g. caller on a web session) are not set at all.
import type { EngineEventInput } from './events.js';
import { redactVariables } from './workflow-deps.js';
import type { Variables } from './node-types.js';

export interface SystemVariables {
  session_id?: string;
  call_id?: string;
  channel?: string;
  caller?: string;
  callee?: string;
  workflow_id?: string;
  workflow_version?: number;
  project_id?: string;
  workspace_id?: string;
  execution_id?: string;
  started_at?: string;
}

export interface VariableSeeds {
  dispatch?: Record<string, unknown>;
  session?: Record<string, unknown>;
  system?: SystemVariables;
}

export function seedVariables(seeds: VariableSeeds): Record<string, unknown> {
  const out: Record<string, unknown> = { ...seeds.dispatch, ...seeds.session };
  for (const [name, value] of Object.entries(seeds.system ?? {})) {
    if (value !== undefined && value !== null) out[name] = value;
  }
  return out;
}

export class VariableStore implements Variables {
  readonly values: Record<string, unknown>;

  constructor(
    initial: Record<string, unknown>,
    private readonly emit: (event: EngineEventInput) => void,
    private readonly currentNode: () => string | undefined,
  ) {
    this.values = { ...initial };
  }

  get(name: string): unknown {
    return this.values[name];
  }

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.values, name);
  }

  set(name: string, value: unknown): void {
    this.setMany({ [name]: value });
  }

  setMany(changes: Record<string, unknown>): void {
    let any = false;
    for (const name in changes) {
      this.values[name] = changes[name];
      any = true;
    }
    if (!any) return;
    const nodeId = this.currentNode();
    this.emit({
      type: 'variables.changed',
      changes: redactVariables(changes),
      ...(nodeId !== undefined ? { node_id: nodeId } : {}),
    });
  }
}
