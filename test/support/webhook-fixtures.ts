// Seeds workspaces, projects and webhook endpoints straight into a store for webhook tests.
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/shared/secret-box.js';
import { newId } from '../../src/shared/ids.js';
import { toDbTime, type Executor } from '../../src/store/database.js';

export const testBox = new SecretBox(randomBytes(32));

export async function seedWorkspace(
  db: Executor,
  ownerEmail: string | null = 'owner@example.test',
  now = Date.now(),
) {
  const workspaceId = newId();
  const projectId = newId();
  const at = toDbTime(now);
  await db
    .insertInto('workspaces')
    .values({
      id: workspaceId,
      name: 'ws',
      owner_email: ownerEmail,
      sip_label: `ws-${workspaceId.slice(-12)}`,
      plan_voice_minutes: null,
      plan_sessions: null,
      plan_calls: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('projects')
    .values({
      id: projectId,
      workspace_id: workspaceId,
      name: 'p',
      description: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { workspaceId, projectId };
}

export async function seedEndpoint(
  db: Executor,
  o: {
    workspaceId: string;
    projectId: string;
    url: string;
    events: string[];
    status?: string;
    secret?: string;
    now?: number;
    box?: SecretBox;
  },
) {
  const id = newId();
  const secret = o.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  const at = toDbTime(o.now ?? Date.now());
  await db
    .insertInto('webhook_endpoints')
    .values({
      id,
      workspace_id: o.workspaceId,
      project_id: o.projectId,
      url: o.url,
      description: null,
      events: JSON.stringify(o.events),
      status: o.status ?? 'active',
      secret_enc: (o.box ?? testBox).seal(secret),
      failing_since: null,
      last_success_at: null,
      paused_reason: o.status === 'paused' ? 'manual' : null,
      paused_at: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { id, secret };
}
