// What the call page reads about one call besides the call itself: its conversation (steps and
// messages), the legs its workflow dialled, the webhook deliveries about it, and the nodes of the
// workflow version that ran. The call is re-read every 2 s while live, and each tick re-reads what
// changes as it goes (the conversation and the legs).
import { useCallback, useState } from 'react';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { usePolling } from '../../api/polling';
import type { Call, WebhookDelivery } from '../../api/types';
import type { TimelineNode } from './call-timeline';

const ENDED = ['completed', 'no_answer', 'busy', 'failed', 'cancelled'];

/** The call, re-read every 2 s until it has ended; `tick` counts the re-reads. */
export function useLiveCall(id: string) {
  const record = useLoad(
    async () => (await call(api.GET('/api/v1/calls/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  const c = record.data;
  const live = Boolean(c && !ENDED.includes(c.status));
  const [tick, setTick] = useState(0);
  const reloadCall = record.reload;
  const poll = useCallback(() => {
    reloadCall();
    setTick((t) => t + 1);
  }, [reloadCall]);
  usePolling(live, poll);
  return { record, live, tick };
}

/** The conversation, legs, webhook events and workflow nodes of call `id` (`c` once read). */
export function useCallActivity(id: string, c: Call | undefined, tick: number) {
  const sessionId = c?.session_id ?? null;
  const conversation = useLoad(async () => {
    if (!sessionId) return null;
    const list = (
      await call(api.GET('/api/v1/conversations', { params: { query: { session_id: sessionId } } }))
    ).data;
    return list[0]
      ? (await call(api.GET('/api/v1/conversations/{id}', { params: { path: { id: list[0].id } } }))).data
      : null;
  }, [sessionId, c?.status, tick]);
  const events = useLoad(async () => (c ? eventsOf(c) : []), [c?.id, c?.status]);
  const legs = useLoad(
    async () =>
      (await call(api.GET('/api/v1/calls', { params: { query: { parent_call_id: id, per_page: 100 } } })))
        .data,
    [id, c?.status, tick],
  );
  const nodes = useVersionNodes(c?.workflow_id ?? null, c?.workflow_version ?? null);
  return { sessionId, conversation, events, legs, nodes };
}

/** Webhook deliveries whose event names this call (the call.* events and its session's). */
async function eventsOf(c: Call): Promise<WebhookDelivery[]> {
  const endpoints = (
    await call(
      api.GET('/api/v1/webhook-endpoints', {
        params: { query: { project_id: c.project_id, per_page: 100 } },
      }),
    )
  ).data;
  const found: WebhookDelivery[] = [];
  for (const e of endpoints) {
    const deliveries = (
      await call(
        api.GET('/api/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id: e.id }, query: { per_page: 100 } },
        }),
      )
    ).data;
    for (const d of deliveries)
      if (isAbout(c, d.event.type, d.attempts[0]?.request.body ?? '')) found.push(d);
  }
  return found;
}

/**
 * Whether an event's body is about the call: a call event only when it is this call's (a leg it
 * dialled shares its session and names it as parent, but its events belong on the leg's own page),
 * any other event when it names the call or its session.
 */
function isAbout(c: Call, type: string, body: string): boolean {
  if (type.startsWith('call.')) {
    try {
      return (JSON.parse(body) as { data?: { id?: unknown } }).data?.id === c.id;
    } catch {
      return false;
    }
  }
  return body.includes(c.id) || (c.session_id !== null && body.includes(c.session_id));
}

/** The nodes of the workflow version that ran, for what each step said or asked. */
function useVersionNodes(workflowId: string | null, version: number | null): TimelineNode[] {
  const loaded = useLoad(async () => {
    if (!workflowId || !version) return [];
    const v = (
      await call(
        api.GET('/api/v1/workflows/{id}/versions/{version}', {
          params: { path: { id: workflowId, version } },
        }),
      )
    ).data;
    const graph = v.graph as { nodes?: TimelineNode[] } | undefined;
    return Array.isArray(graph?.nodes) ? graph.nodes : [];
  }, [workflowId, version]);
  // Without the graph (a deleted workflow, a key that may not read it) the steps still show.
  return loaded.data ?? [];
}
