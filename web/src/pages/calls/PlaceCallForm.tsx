// "Place a call": an outbound call from one of your numbers, running a published workflow when
// the callee answers. Set-up failures are not errors here: the call is created and its page shows
// how it ended (busy, no answer, …).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import { useProjectWorkflows } from '../../api/workflow-name';
import { ProjectField } from '../../components/ProjectField';
import { fieldBinder, SelectField, TextField } from '../../components/fields';
import { KeyValueEditor, objectOf, type Pair } from '../../components/KeyValueEditor';
import { FormCard } from '../../components/FormCard';

export function PlaceCallForm({ onCancel }: { onCancel: () => void }) {
  const projects = useProjects();
  const navigate = useNavigate();
  const [draft, setDraft] = useState({ project_id: '', workflow_id: '', from: '', to: '' });
  const field = fieldBinder(draft, setDraft);
  const [variables, setVariables] = useState<Pair[]>([]);
  const projectId = projects.orFirst(draft.project_id);
  const workflows = useProjectWorkflows(projectId);
  const numbers = useLoad(
    async () =>
      projectId
        ? (
            await call(
              api.GET('/api/v1/phone-numbers', {
                params: { query: { project_id: projectId, per_page: 100 } },
              }),
            )
          ).data
        : [],
    [projectId],
  );
  const published = (workflows.data ?? []).filter((w) => w.published_version);

  const place = async () => {
    const { data } = await call(
      api.POST('/api/v1/calls', {
        body: {
          project_id: projectId,
          workflow_id: draft.workflow_id || published[0]?.id || '',
          from: draft.from || numbers.data?.[0]?.number || '',
          to: draft.to.trim(),
          variables: objectOf(variables),
        },
      }),
    );
    navigate(`/calls/${data.id}`);
  };

  return (
    <FormCard
      title="Place a call"
      submitLabel="Call"
      busyLabel="Calling…"
      onSubmit={place}
      onCancel={onCancel}
    >
      <div className="grid-2">
        <ProjectField
          projects={projects}
          value={projectId}
          onChange={(project_id) => setDraft({ ...draft, project_id, workflow_id: '', from: '' })}
        />
        <SelectField
          name="workflow_id"
          label="Workflow"
          value={draft.workflow_id || published[0]?.id || ''}
          onChange={(workflow_id) => setDraft({ ...draft, workflow_id })}
          options={published.map((w) => ({ value: w.id, label: `${w.name} (v${w.published_version})` }))}
          hint={
            published.length === 0
              ? 'Publish a workflow in this project first.'
              : 'Runs its latest published version.'
          }
        />
        <SelectField
          name="from"
          label="From (your number)"
          value={draft.from || numbers.data?.[0]?.number || ''}
          onChange={(from) => setDraft({ ...draft, from })}
          options={(numbers.data ?? []).map((n) => ({
            value: n.number,
            label: n.label ? `${n.number} · ${n.label}` : n.number,
          }))}
        />
        <TextField {...field('to')} label="To (E.164)" type="tel" placeholder="+14155550123" autoFocus />
      </div>
      <KeyValueEditor name="variables" legend="Variables" pairs={variables} onChange={setVariables} />
    </FormCard>
  );
}
