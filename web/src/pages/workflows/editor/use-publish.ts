// Publishing: the draft is flushed first, so what is published is what is on the canvas; a version
// given is published again (a roll back). A refusal (422) puts its findings on the steps.
import { useState } from 'react';
import { api, call } from '../../../api/client';
import { ApiError, explain } from '../../../api/errors';
import type { Workflow } from '../../../api/types';
import type { Notice } from './EditorHeader';
import { findingsFromErrors } from './findings';
import type { Finding, StepNode } from './graph';
import type { DraftSaver } from './use-draft-saver';

export function usePublish(
  workflow: Workflow,
  { saver, nodes }: { saver: DraftSaver; nodes: StepNode[] },
  {
    validate,
    setFindings,
    setNotice,
    onRefused,
  }: {
    validate: () => Promise<unknown>;
    setFindings: (findings: Finding[]) => void;
    setNotice: (notice: Notice | null) => void;
    /** A 422: the findings are on the steps (the Step panel shows them). */
    onRefused: () => void;
  },
) {
  const [published, setPublished] = useState<number | null>(workflow.published_version);
  const [busy, setBusy] = useState(false);
  // Bumped after each publish, so the versions list reloads.
  const [generation, setGeneration] = useState(0);

  const publish = async (version?: number) => {
    setBusy(true);
    setNotice(null);
    try {
      await saver.flush();
      const { data } = await call(
        api.POST('/api/v1/workflows/{id}/publish', {
          params: { path: { id: workflow.id } },
          body: version ? { version } : {},
        }),
      );
      setPublished(data.published_version);
      setGeneration((g) => g + 1);
      setNotice({
        tone: 'good',
        text: version
          ? `Version ${version} published again as version ${data.published_version}.`
          : `Published version ${data.published_version}. Numbers and sessions now run it.`,
      });
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(400, String(err));
      if (e.status === 422) {
        setFindings(
          findingsFromErrors(
            e.fieldErrors,
            nodes.map((n) => n.id),
          ),
        );
        void validate().catch(() => undefined);
        onRefused();
      }
      setNotice({ tone: 'bad', text: e.status === 422 ? e.message : explain(e) });
    } finally {
      setBusy(false);
    }
  };
  return { published, busy, generation, publish };
}
