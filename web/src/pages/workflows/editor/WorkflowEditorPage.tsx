// The visual workflow editor (/workflows/:id), its own lazily loaded chunk. It loads the workflow,
// the node schemas (GET /workflow-schema) and the project's agents, then hands them to the canvas
// (Editor.tsx), which owns the graph while it is edited.
import { useParams } from 'react-router';
import { api, call } from '../../../api/client';
import { useLoad } from '../../../api/hooks';
import { ErrorBanner, Loading } from '../../../components/ErrorBanner';
import { Editor } from './Editor';
import type { JsonSchema } from './schema-form';

/** The `$defs` of the graph schema: `<type>_config` for each node type. */
async function loadSchemas(): Promise<Record<string, JsonSchema>> {
  const { response } = await api.GET('/api/v1/workflow-schema', { parseAs: 'stream' });
  const doc = (await response.json()) as { $defs?: Record<string, JsonSchema> };
  return doc.$defs ?? {};
}

export default function WorkflowEditorPage() {
  const { id = '' } = useParams();
  const workflow = useLoad(
    async () => (await call(api.GET('/api/v1/workflows/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  const schemas = useLoad(loadSchemas, []);
  const projectId = workflow.data?.project_id;
  const agents = useLoad(
    async () =>
      projectId
        ? (
            await call(
              api.GET('/api/v1/agents', { params: { query: { project_id: projectId, per_page: 100 } } }),
            )
          ).data
        : [],
    [projectId],
  );
  if (workflow.error) return <ErrorBanner error={workflow.error} onRetry={workflow.reload} />;
  if (schemas.error) return <ErrorBanner error={schemas.error} onRetry={schemas.reload} />;
  if (!workflow.data || !schemas.data) return <Loading label="Loading the workflow…" />;
  return (
    <Editor
      key={workflow.data.id}
      workflow={workflow.data}
      schemas={schemas.data}
      agents={(agents.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
    />
  );
}
