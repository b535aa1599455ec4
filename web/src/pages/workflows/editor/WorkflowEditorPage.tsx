// The visual workflow editor's route (/workflows/:id), loaded as its own chunk. Until the editor
// lands this page shows the workflow and its draft graph read-only.
import { useParams } from 'react-router';
import { api, call } from '../../../api/client';
import { useLoad } from '../../../api/hooks';
import { Badge } from '../../../components/Badge';
import { ErrorBanner, Loading } from '../../../components/ErrorBanner';
import { PageHeader } from '../../../components/PageHeader';

export default function WorkflowEditorPage() {
  const { id = '' } = useParams();
  const workflow = useLoad(
    async () => (await call(api.GET('/api/v1/workflows/{id}', { params: { path: { id } } }))).data,
    [id],
  );
  if (workflow.error) return <ErrorBanner error={workflow.error} onRetry={workflow.reload} />;
  if (!workflow.data) return <Loading />;
  const w = workflow.data;
  return (
    <>
      <PageHeader
        title={w.name}
        crumb="Workflows"
        description={
          w.published_version ? (
            <Badge value={`published v${w.published_version}`} tone="good" />
          ) : (
            <Badge value="draft" />
          )
        }
      />
      <div className="card">
        <h2>Draft graph</h2>
        <pre className="code-block" tabIndex={0} aria-label="Draft graph (JSON)">
          {JSON.stringify(w.graph, null, 2)}
        </pre>
      </div>
    </>
  );
}
