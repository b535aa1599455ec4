// SQL for call recordings: the call's recording as the API sees it, the marks the call controller
// leaves on the call (recording present, or why it is absent), and the retention query.
import type { Executor } from '../../store/database.js';

/** The call's recording URL (null when it has none), or undefined when the call is not the workspace's. */
export async function recordingOf(
  ex: Executor,
  workspaceId: string,
  callId: string,
): Promise<string | null | undefined> {
  const row = await ex
    .selectFrom('calls')
    .select(['recording_url'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', callId)
    .executeTakeFirst();
  return row ? (row.recording_url ?? null) : undefined;
}

export async function markRecording(
  ex: Executor,
  callId: string,
  mark: { recording_url: string | null; recording_error: string | null },
  at: string,
): Promise<void> {
  await ex
    .updateTable('calls')
    .set({ ...mark, updated_at: at })
    .where('id', '=', callId)
    .execute();
}

/** Ended calls of `nodeId` (or of no node) whose recordings are past retention, oldest first. */
export async function expiredRecordings(
  ex: Executor,
  nodeId: string,
  endedBefore: string,
  limit: number,
): Promise<string[]> {
  const rows = await ex
    .selectFrom('calls')
    .select(['id'])
    .where('recording_url', 'is not', null)
    .where('ended_at', '<', endedBefore)
    .where((eb) => eb.or([eb('node_id', '=', nodeId), eb('node_id', 'is', null)]))
    .orderBy('ended_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
