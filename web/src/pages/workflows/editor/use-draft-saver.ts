// Saves the draft as you go: each change schedules a PATCH of the whole graph after a short quiet
// spell (so a drag or a word typed is one request, not dozens); one save runs at a time and the
// newest graph wins. A 429 waits the Retry-After and tries again by itself; any other failure
// keeps the unsaved graph and shows why, with a retry. Nothing typed is lost on an error.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, call } from '../../../api/client';
import { ApiError } from '../../../api/errors';
import type { Graph } from './graph';

export type SaveStatus = 'saved' | 'pending' | 'saving' | 'error';

export interface DraftSaver {
  status: SaveStatus;
  error: ApiError | null;
  /** Schedules a save of `graph` (the newest scheduled graph is the one sent). */
  schedule: (graph: Graph) => void;
  /** Sends the pending graph now; resolves when the draft on the server is current. */
  flush: () => Promise<void>;
}

export function useDraftSaver(
  workflowId: string,
  { delayMs = 600, onSaved }: { delayMs?: number; onSaved?: () => void } = {},
): DraftSaver {
  const [status, setStatus] = useState<SaveStatus>('saved');
  const [error, setError] = useState<ApiError | null>(null);
  const pending = useRef<Graph | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const running = useRef<Promise<void> | null>(null);
  const failed = useRef(false);
  const onSavedRef = useRef(onSaved);
  onSavedRef.current = onSaved;

  const run = useCallback(async (): Promise<void> => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (running.current) {
      await running.current;
      if (pending.current) return run();
      return;
    }
    const graph = pending.current;
    if (!graph) return;
    pending.current = null;
    setStatus('saving');
    const attempt = (async () => {
      try {
        await call(
          api.PATCH('/api/v1/workflows/{id}', { params: { path: { id: workflowId } }, body: { graph } }),
        );
        failed.current = false;
        setError(null);
        setStatus(pending.current ? 'pending' : 'saved');
        onSavedRef.current?.();
      } catch (err) {
        // Keep the graph that failed unless a newer one is already waiting.
        pending.current ??= graph;
        failed.current = true;
        const e = err instanceof ApiError ? err : new ApiError(400, String(err));
        setError(e);
        setStatus('error');
        if (e.status === 429) {
          timer.current = setTimeout(() => void run(), Math.max(1, e.retryAfterSeconds ?? 2) * 1000);
        }
      }
    })();
    running.current = attempt;
    await attempt;
    running.current = null;
    if (pending.current && !failed.current && !timer.current) return run();
  }, [workflowId]);

  const schedule = useCallback(
    (graph: Graph) => {
      pending.current = graph;
      setStatus((s) => (s === 'error' ? s : 'pending'));
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => void run(), delayMs);
    },
    [delayMs, run],
  );

  // Leaving the page with a change still waiting: send it rather than drop it.
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
      if (pending.current) void run();
    },
    [run],
  );

  return { status, error, schedule, flush: run };
}
