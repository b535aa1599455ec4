// The draft's findings: validated when the editor opens and after each save (the caller's
// onSaved), so they follow the edits. A valid graph clears a refused publish's banner.
import { useCallback, useEffect, useState } from 'react';
import { api, call } from '../../../api/client';
import type { Notice } from './EditorHeader';
import type { Finding } from './graph';

export function useValidation(
  workflowId: string,
  setNotice: (update: (notice: Notice | null) => Notice | null) => void,
) {
  const [findings, setFindings] = useState<Finding[]>([]);
  const validate = useCallback(async () => {
    const { data } = await call(
      api.POST('/api/v1/workflows/{id}/validate', { params: { path: { id: workflowId } } }),
    );
    setFindings([...data.errors, ...data.warnings.map((w) => ({ ...w, severity: 'warning' as const }))]);
    // A refused publish's banner goes once the graph it spoke of is valid.
    if (data.valid) setNotice((n) => (n?.tone === 'bad' ? null : n));
    return data;
  }, [workflowId, setNotice]);
  useEffect(() => void validate().catch(() => undefined), [validate]);
  return { findings, setFindings, validate };
}
