// Phone numbers: the E.164 numbers your carrier routes to a trunk. Registering one leads to its
// page, where its dispatch rules choose the workflow that answers.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { useResourceList } from '../../api/list-query';
import { useProjects, type Projects } from '../../api/projects';
import type { Page, PhoneNumber } from '../../api/types';
import { fieldBinder, SelectField, TextField } from '../../components/fields';
import { ProjectField } from '../../components/ProjectField';
import { PageHeader } from '../../components/PageHeader';
import { ResourceList } from '../../components/ResourceList';
import { FormCard } from '../../components/FormCard';

type Draft = { number: string; label: string; sip_trunk_id: string; project_id: string };

export function NumbersPage() {
  const projects = useProjects();
  const trunks = useLoad(
    async () => (await call(api.GET('/api/v1/sip-trunks', { params: { query: { per_page: 100 } } }))).data,
    [],
  );
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState<Draft>({ number: '', label: '', sip_trunk_id: '', project_id: '' });
  const navigate = useNavigate();
  const list = useResourceList<PhoneNumber, 'project_id'>(
    ['project_id'],
    async (query) =>
      (await call(api.GET('/api/v1/phone-numbers', { params: { query } }))) as Page<PhoneNumber>,
  );
  const trunkOptions = (trunks.data ?? []).map((t) => ({ value: t.id, label: t.name }));
  const trunkName = (id: string) => trunks.data?.find((t) => t.id === id)?.name ?? id.slice(0, 8);
  const chosenTrunk = draft.sip_trunk_id || trunkOptions[0]?.value || '';
  const chosenProject = projects.orFirst(draft.project_id);

  const create = async () => {
    const { data } = await call(
      api.POST('/api/v1/phone-numbers', {
        body: {
          number: draft.number.trim(),
          sip_trunk_id: chosenTrunk,
          project_id: chosenProject,
          ...(draft.label.trim() ? { label: draft.label.trim() } : {}),
        },
      }),
    );
    navigate(`/telephony/numbers/${data.id}`);
  };

  return (
    <>
      <PageHeader
        title="Phone numbers"
        description="Numbers bought at your carrier and carried by one of your trunks. Each number's dispatch rules choose the workflow that answers."
        actions={
          !creating && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              Register number
            </button>
          )
        }
      />
      {creating && (
        <RegisterNumberForm
          draft={draft}
          onDraft={setDraft}
          projects={projects}
          chosenProject={chosenProject}
          trunkOptions={trunkOptions}
          chosenTrunk={chosenTrunk}
          noTrunks={trunks.data?.length === 0}
          onSubmit={create}
          onCancel={() => setCreating(false)}
        />
      )}
      <ResourceList
        list={list}
        noun="numbers"
        empty="No numbers registered yet."
        filters={[projects.filter]}
        columns={[
          {
            header: 'Number',
            cell: (n) => (
              <Link to={`/telephony/numbers/${n.id}`} className="mono">
                {n.number}
              </Link>
            ),
          },
          { header: 'Label', cell: (n) => n.label ?? <span className="muted">—</span> },
          { header: 'Project', cell: (n) => projects.nameOf(n.project_id) },
          { header: 'Trunk', cell: (n) => trunkName(n.sip_trunk_id) },
          { header: 'Rules', cell: (n) => n.dispatch_rules.length, num: true },
        ]}
      />
    </>
  );
}

/** A new number: E.164, label, trunk (one must exist first) and project. */
function RegisterNumberForm({
  draft,
  onDraft,
  projects,
  chosenProject,
  trunkOptions,
  chosenTrunk,
  noTrunks,
  onSubmit,
  onCancel,
}: {
  draft: Draft;
  onDraft: (draft: Draft) => void;
  projects: Projects;
  chosenProject: string;
  trunkOptions: { value: string; label: string }[];
  /** The trunk picked, else the first. */
  chosenTrunk: string;
  /** The trunks are read and there is none. */
  noTrunks: boolean;
  onSubmit: () => Promise<void>;
  onCancel: () => void;
}) {
  const field = fieldBinder(draft, onDraft);
  return (
    <FormCard
      title="Register a number"
      submitLabel="Register number"
      onSubmit={onSubmit}
      onCancel={onCancel}
      notice={
        <>
          {noTrunks && (
            <div className="banner banner-warn" role="status">
              A number lives on a trunk: <Link to="/telephony/trunks">create a trunk</Link> first.
            </div>
          )}
        </>
      }
    >
      <div className="grid-2">
        <TextField
          {...field('number')}
          label="Number (E.164)"
          type="tel"
          placeholder="+14155550100"
          autoFocus
        />
        <TextField {...field('label')} label="Label (optional)" placeholder="Front desk" />
        <SelectField
          name="sip_trunk_id"
          label="Trunk"
          value={chosenTrunk}
          onChange={(sip_trunk_id) => onDraft({ ...draft, sip_trunk_id })}
          options={trunkOptions}
        />
        <ProjectField
          projects={projects}
          value={chosenProject}
          onChange={(project_id) => onDraft({ ...draft, project_id })}
        />
      </div>
    </FormCard>
  );
}
