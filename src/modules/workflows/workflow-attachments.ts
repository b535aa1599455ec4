// Which phone numbers' dispatch rules send calls to a workflow (DELETE /workflows is 409 while any do).
import { parseJson, type Executor } from '../../store/database.js';

export async function workflowAttachedNumbers(
  ex: Executor,
  workspaceId: string,
  workflowId: string,
): Promise<string[]> {
  const rows = await ex
    .selectFrom('phone_numbers')
    .select(['number', 'dispatch_rules'])
    .where('workspace_id', '=', workspaceId)
    .where('dispatch_rules', 'like', `%${workflowId}%`)
    .execute();
  return rows
    .filter((r) =>
      parseJson<Array<{ workflow_id?: unknown }>>(r.dispatch_rules, []).some(
        (rule) => rule.workflow_id === workflowId,
      ),
    )
    .map((r) => r.number);
}
