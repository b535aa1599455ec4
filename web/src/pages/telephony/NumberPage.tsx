// One phone number: its label and project, the dispatch-rule editor, and the dispatch test.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { useProjects, type Projects } from '../../api/projects';
import { useProjectWorkflows } from '../../api/workflow-name';
import type { PhoneNumber, Workflow } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { TextField } from '../../components/fields';
import { Form } from '../../components/Form';
import { ProjectField } from '../../components/ProjectField';
import { PageHeader } from '../../components/PageHeader';
import { draftOfRule, inEvaluationOrder, ruleOfDraft, type RuleDraft } from './dispatch-rules';
import { DispatchRulesEditor } from './DispatchRulesEditor';
import { DispatchTestPanel } from './DispatchTestPanel';

interface Draft {
  label: string;
  project_id: string;
  rules: RuleDraft[];
}

function draftOf(n: PhoneNumber): Draft {
  return {
    label: n.label ?? '',
    project_id: n.project_id,
    rules: inEvaluationOrder(n.dispatch_rules).map(draftOfRule),
  };
}

export function NumberPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const projects = useProjects();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [dirty, setDirty] = useState(false);
  const [saved, setSaved] = useState(false);
  const [winner, setWinner] = useState<number | null>(null);
  const number = useLoad(async () => {
    const { data } = await call(api.GET('/api/v1/phone-numbers/{id}', { params: { path: { id } } }));
    setDraft(draftOf(data));
    return data;
  }, [id]);
  const workflows = useProjectWorkflows(number.data?.project_id);

  if (number.error && !number.data) return <ErrorBanner error={number.error} onRetry={number.reload} />;
  if (!number.data || !draft) return <Loading />;
  const n = number.data;
  const change = (d: Draft) => {
    setDraft(d);
    setDirty(true);
    setSaved(false);
    setWinner(null);
  };
  const workflowName = (wid: string) => workflows.data?.find((w) => w.id === wid)?.name ?? wid.slice(0, 8);

  const save = async () => {
    const { data } = await call(
      api.PATCH('/api/v1/phone-numbers/{id}', {
        params: { path: { id } },
        body: {
          label: draft.label.trim() || null,
          project_id: draft.project_id,
          dispatch_rules: draft.rules.map(ruleOfDraft) as PhoneNumber['dispatch_rules'],
        } as never,
      }),
    );
    number.setData(data);
    setDraft(draftOf(data));
    setDirty(false);
    setSaved(true);
  };

  return (
    <>
      <NumberHeader n={n} onUnregistered={() => navigate('/telephony/numbers')} />
      <div className="split">
        <div className="card">
          <NumberForm
            draft={draft}
            onChange={change}
            onSave={save}
            saved={saved}
            projects={projects}
            workflows={workflows.data ?? []}
            winner={dirty ? null : winner}
          />
        </div>
        <div className="card">
          <DispatchTestPanel
            numberId={id}
            workflowName={workflowName}
            dirty={dirty}
            onResult={(r) => {
              // The result's index is the stored position; the editor shows rules in evaluation order.
              const stored = n.dispatch_rules[r.winner?.index ?? -1];
              setWinner(stored ? inEvaluationOrder(n.dispatch_rules).indexOf(stored) : null);
            }}
          />
        </div>
      </div>
    </>
  );
}

/** The number's label and project and its dispatch rules, saved with one PATCH. */
function NumberForm({
  draft,
  onChange,
  onSave,
  saved,
  projects,
  workflows,
  winner,
}: {
  draft: Draft;
  onChange: (draft: Draft) => void;
  onSave: () => Promise<void>;
  /** Just saved (and not changed since). */
  saved: boolean;
  projects: Projects;
  /** The number's project's workflows, for the rules' pickers. */
  workflows: Workflow[];
  /** The rule the last dispatch test picked, in evaluation order. */
  winner: number | null;
}) {
  return (
    <Form label="Number and dispatch rules" submitLabel="Save rules" onSubmit={onSave}>
      {saved && (
        <div className="banner banner-info" role="status">
          Saved. New calls use these rules now.
        </div>
      )}
      <div className="grid-2">
        <TextField
          name="label"
          label="Label"
          value={draft.label}
          onChange={(label) => onChange({ ...draft, label })}
        />
        <ProjectField
          projects={projects}
          value={draft.project_id}
          onChange={(project_id) => onChange({ ...draft, project_id })}
        />
      </div>
      <h2>Dispatch rules</h2>
      <p className="muted">
        Evaluated top to bottom (ascending priority); the first rule whose filters all match answers with its
        workflow&apos;s latest published version.
      </p>
      <DispatchRulesEditor
        rules={draft.rules}
        onChange={(rules) => onChange({ ...draft, rules })}
        workflows={workflows}
        winner={winner}
      />
    </Form>
  );
}

/** The number, its label (or what its rules do), and unregistering it. */
function NumberHeader({ n, onUnregistered }: { n: PhoneNumber; onUnregistered: () => void }) {
  return (
    <PageHeader
      title={n.number}
      crumb={<Link to="/telephony/numbers">Phone numbers</Link>}
      description={
        n.label ?? 'Calls to this number run the workflow of the first dispatch rule that matches.'
      }
      actions={
        <ConfirmButton
          label="Unregister"
          question="Unregister this number? Calls to it will get SIP 404."
          onConfirm={async () => {
            await call(api.DELETE('/api/v1/phone-numbers/{id}', { params: { path: { id: n.id } } }));
            onUnregistered();
          }}
        />
      }
    />
  );
}
