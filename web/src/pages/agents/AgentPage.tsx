// One agent (or a new one at /agents/new): every field of the API's agent, with provider and model
// pickers. Delete is refused (409) while a workflow uses the agent, and the message names it.
import { useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useLoad } from '../../api/hooks';
import { useProjects, type Projects } from '../../api/projects';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { fieldBinder, SelectField, TextArea, TextField } from '../../components/fields';
import { Form } from '../../components/Form';
import { ProjectField } from '../../components/ProjectField';
import { PageHeader, Section } from '../../components/PageHeader';
import {
  bodyOfAgent,
  draftOfAgent,
  EMPTY_AGENT,
  LLM_PROVIDERS,
  MODEL_SUGGESTIONS,
  ToolsJsonError,
  type AgentDraft,
} from './agent-form';

const OTHER_MODEL = '__other__';

export function AgentPage() {
  const { id = 'new' } = useParams();
  const creating = id === 'new';
  const navigate = useNavigate();
  const projects = useProjects();
  const modelsId = useId();
  const [draft, setDraft] = useState<AgentDraft | null>(creating ? EMPTY_AGENT : null);
  const [saved, setSaved] = useState(false);
  const [otherChosen, setOtherChosen] = useState(false);
  const agent = useLoad(async () => {
    if (creating) return null;
    const { data } = await call(api.GET('/api/v1/agents/{id}', { params: { path: { id } } }));
    setDraft(draftOfAgent(data));
    return data;
  }, [id]);

  if (agent.error && !agent.data) return <ErrorBanner error={agent.error} onRetry={agent.reload} />;
  if (!draft) return <Loading />;
  const edit = (next: AgentDraft) => (setDraft(next), setSaved(false));
  const field = fieldBinder(draft, edit);
  const projectId = projects.orFirst(draft.project_id);
  const suggested = (MODEL_SUGGESTIONS[draft.llm_provider] ?? []).includes(draft.llm_model);
  const otherModel = otherChosen || (draft.llm_model !== '' && !suggested);

  const save = async () => {
    let body: Record<string, unknown>;
    try {
      body = bodyOfAgent({ ...draft, project_id: projectId }, creating);
    } catch (err) {
      if (err instanceof ToolsJsonError) throw new ApiError(422, err.message, { tools: [err.message] });
      throw err;
    }
    if (creating) {
      const { data } = await call(api.POST('/api/v1/agents', { body: body as never }));
      navigate(`/agents/${data.id}`, { replace: true });
      return;
    }
    const { data } = await call(
      api.PATCH('/api/v1/agents/{id}', { params: { path: { id } }, body: body as never }),
    );
    agent.setData(data);
    setDraft(draftOfAgent(data));
    setSaved(true);
  };

  return (
    <>
      <AgentHeader
        id={creating ? null : id}
        name={agent.data?.name ?? 'Agent'}
        onDeleted={() => navigate('/agents')}
      />
      <Form
        label={creating ? 'New agent' : 'Agent settings'}
        submitLabel={creating ? 'Create agent' : 'Save changes'}
        onSubmit={save}
      >
        {saved && (
          <div className="banner banner-info" role="status">
            Saved.
          </div>
        )}
        <IdentitySection field={field} creating={creating} projects={projects} projectId={projectId} />
        <LanguageModelSection
          draft={draft}
          edit={edit}
          field={field}
          modelsId={modelsId}
          otherModel={otherModel}
          setOtherModel={setOtherChosen}
        />
        <VoiceSection field={field} />
        <KnowledgeSection field={field} />
      </Form>
    </>
  );
}

type AgentField = ReturnType<typeof fieldBinder<AgentDraft>>;

/** The agent's name (or "New agent") and, once it exists, deleting it. */
function AgentHeader({ id, name, onDeleted }: { id: string | null; name: string; onDeleted: () => void }) {
  return (
    <PageHeader
      title={id === null ? 'New agent' : name}
      crumb={<Link to="/agents">Agents</Link>}
      description="An LLM persona that workflows' agent nodes talk through. Changes apply to the next turn of every call."
      actions={
        id !== null && (
          <ConfirmButton
            label="Delete agent"
            question="Delete this agent?"
            onConfirm={async () => {
              await call(api.DELETE('/api/v1/agents/{id}', { params: { path: { id } } }));
              onDeleted();
            }}
          />
        )
      }
    />
  );
}

/** The agent's name, project (fixed once it exists), system prompt and greeting. */
function IdentitySection({
  field,
  creating,
  projects,
  projectId,
}: {
  field: AgentField;
  creating: boolean;
  projects: Projects;
  projectId: string;
}) {
  return (
    <Section title="Identity" id="identity">
      <div className="grid-2">
        <TextField {...field('name')} label="Name" autoFocus={creating} placeholder="Receptionist" />
        <ProjectField
          projects={projects}
          value={projectId}
          onChange={field('project_id').onChange}
          disabled={!creating}
          hint={creating ? undefined : 'Fixed once the agent exists.'}
        />
      </div>
      <TextArea
        {...field('system_prompt')}
        label="System prompt"
        rows={6}
        placeholder="You are the front desk of …"
      />
      <TextField
        {...field('greeting')}
        label="Greeting (optional)"
        placeholder="Hello, how can I help?"
        hint="Spoken first, before the caller says anything."
      />
    </Section>
  );
}

/** The provider, the model (a vendor's suggestions, or another id), temperature and tools. */
function LanguageModelSection({
  draft,
  edit,
  field,
  modelsId,
  otherModel,
  setOtherModel,
}: {
  draft: AgentDraft;
  edit: (next: AgentDraft) => void;
  field: AgentField;
  /** The id of the model suggestions' datalist. */
  modelsId: string;
  /** The model is typed in rather than chosen from the suggestions. */
  otherModel: boolean;
  setOtherModel: (other: boolean) => void;
}) {
  const suggested = (MODEL_SUGGESTIONS[draft.llm_provider] ?? []).includes(draft.llm_model);
  return (
    <Section title="Language model" id="llm">
      <div className="grid-3">
        <SelectField
          name="llm_provider"
          label="Provider"
          value={draft.llm_provider}
          onChange={(llm_provider) => {
            // A model of the old vendor means nothing to the new one: offer the new one's first.
            const models = MODEL_SUGGESTIONS[llm_provider] ?? [];
            const keep = !suggested || models.includes(draft.llm_model);
            edit({ ...draft, llm_provider, llm_model: keep ? draft.llm_model : (models[0] ?? '') });
          }}
          options={LLM_PROVIDERS}
        />
        <div>
          <SelectField
            name="llm_model_choice"
            label="Model"
            value={otherModel ? OTHER_MODEL : draft.llm_model}
            onChange={(v) => {
              setOtherModel(v === OTHER_MODEL);
              if (v !== OTHER_MODEL) field('llm_model').onChange(v);
            }}
            options={[
              ...(MODEL_SUGGESTIONS[draft.llm_provider] ?? []).map((m) => ({ value: m, label: m })),
              { value: OTHER_MODEL, label: 'Another model id…' },
            ]}
            emptyLabel={draft.llm_model ? undefined : 'Choose a model'}
          />
          {otherModel && (
            <TextField
              {...field('llm_model')}
              label="Model id"
              list={modelsId}
              placeholder={MODEL_SUGGESTIONS[draft.llm_provider]?.[0]}
              hint="Any model the vendor serves."
            />
          )}
        </div>
        <TextField
          label="Temperature"
          type="number"
          step="0.1"
          inputMode="decimal"
          {...field('temperature')}
          hint="0 to 2; 0.7 by default."
        />
      </div>
      <datalist id={modelsId}>
        {(MODEL_SUGGESTIONS[draft.llm_provider] ?? []).map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <TextArea
        {...field('tools')}
        label="Tools (JSON)"
        rows={4}
        hint='An array of {"name", "description", "parameters"?, "url"?, "method"?}.'
      />
    </Section>
  );
}

/** Speech to text and text to speech: vendor, language, voice. */
function VoiceSection({ field }: { field: AgentField }) {
  return (
    <Section title="Voice" id="voice">
      <div className="grid-2">
        <SelectField
          {...field('stt_provider')}
          label="Speech to text"
          options={[{ value: 'stt_vendor_1', label: 'stt_vendor_1 (streaming)' }]}
        />
        <TextField {...field('stt_language')} label="Language" placeholder="en-US" />
        <SelectField
          {...field('tts_provider')}
          label="Text to speech"
          options={[{ value: 'tts_vendor_1', label: 'tts_vendor_1 (streaming)' }]}
        />
        <TextField
          {...field('tts_voice')}
          label="Voice (optional)"
          hint="The vendor's voice id; empty uses its default."
        />
      </div>
    </Section>
  );
}

/** The knowledge bases and MCP servers the agent may use. */
function KnowledgeSection({ field }: { field: AgentField }) {
  return (
    <Section title="Knowledge and MCP" id="knowledge">
      <div className="grid-2">
        <TextField {...field('knowledge_base_ids')} label="Knowledge base ids" hint="Comma-separated." />
        <TextField {...field('mcp_server_ids')} label="MCP server ids" hint="Comma-separated." />
      </div>
    </Section>
  );
}
