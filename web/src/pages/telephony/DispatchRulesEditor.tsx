// The dispatch-rule editor of a phone number: rules in evaluation order (move up/down renumbers
// priorities), each with its workflow, an optional time window (days, start, end, IANA zone),
// caller allow/block lists and seed variables. Saved with one PATCH; the API's errors land on the
// rule and field they name (dispatch_rules.<i>.<field>).
import { useId } from 'react';
import { Badge } from '../../components/Badge';
import { CheckboxGroup, SelectField, TextArea, TextField } from '../../components/fields';
import { KeyValueEditor } from '../../components/KeyValueEditor';
import type { Workflow } from '../../api/types';
import { DAYS, moveRule, newRule, timeZones, type RuleDraft } from './dispatch-rules';

const DAY_LABELS: Record<string, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

interface Props {
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  workflows: Workflow[];
  /** Index of the rule the last dispatch test picked, highlighted. */
  winner?: number | null;
}

export function DispatchRulesEditor({ rules, onChange, workflows, winner }: Props) {
  const zonesId = useId();
  const set = (i: number, patch: Partial<RuleDraft>) =>
    onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const options = workflows.map((w) => ({
    value: w.id,
    label: w.published_version ? `${w.name} (v${w.published_version})` : `${w.name} (not published)`,
  }));
  return (
    <div className="rule-list">
      <datalist id={zonesId}>
        {timeZones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      {rules.length === 0 && (
        <p className="muted">
          No rules: every call to this number is refused (SIP 480, hang-up reason no_dispatch_rule).
        </p>
      )}
      {rules.map((rule, i) => (
        <RuleCard
          key={i}
          rule={rule}
          index={i}
          count={rules.length}
          wins={winner === i}
          workflows={options}
          zonesId={zonesId}
          onPatch={(patch) => set(i, patch)}
          onMove={(by) => onChange(moveRule(rules, i, by))}
          onRemove={() => onChange(rules.filter((_, j) => j !== i))}
        />
      ))}
      <button
        type="button"
        className="btn"
        onClick={() =>
          onChange([
            ...rules,
            newRule(rules.length ? Math.max(...rules.map((r) => Number(r.priority) || 0)) + 10 : 100),
          ])
        }
      >
        Add rule
      </button>
    </div>
  );
}

/** One rule: its place in the order, workflow and priority, time window, caller lists, variables. */
function RuleCard({
  rule,
  index: i,
  count,
  wins,
  workflows,
  zonesId,
  onPatch,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  /** How many rules there are. */
  count: number;
  /** The last dispatch test picked this rule. */
  wins: boolean;
  workflows: { value: string; label: string }[];
  /** The id of the time zones' datalist. */
  zonesId: string;
  onPatch: (patch: Partial<RuleDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const prefix = `dispatch_rules.${i}`;
  return (
    <section className={`rule ${wins ? 'rule-win' : ''}`} aria-label={`Rule ${i + 1}`}>
      <RuleHead index={i} count={count} wins={wins} onMove={onMove} onRemove={onRemove} />
      <div className="grid-2">
        <SelectField
          name={`${prefix}.workflow_id`}
          label="Workflow"
          value={rule.workflow_id}
          onChange={(workflow_id) => onPatch({ workflow_id })}
          options={workflows}
          emptyLabel="Choose a workflow"
        />
        <TextField
          name={`${prefix}.priority`}
          label="Priority"
          inputMode="numeric"
          value={rule.priority}
          onChange={(priority) => onPatch({ priority })}
          hint="Lower runs first."
        />
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={rule.hasWindow}
          onChange={(e) => onPatch({ hasWindow: e.target.checked })}
        />
        Only during a time window
      </label>
      {rule.hasWindow && <RuleWindow rule={rule} prefix={prefix} zonesId={zonesId} onPatch={onPatch} />}
      <CallerLists rule={rule} prefix={prefix} onPatch={onPatch} />
      <KeyValueEditor
        name={`${prefix}.variables`}
        legend="Variables for the workflow"
        pairs={rule.variables}
        onChange={(variables) => onPatch({ variables })}
      />
    </section>
  );
}

/** A rule's time window: days, start, end and IANA time zone. */
function RuleWindow({
  rule,
  prefix,
  zonesId,
  onPatch,
}: {
  rule: RuleDraft;
  /** The rule's field names' prefix (dispatch_rules.<i>), where the API's errors land. */
  prefix: string;
  zonesId: string;
  onPatch: (patch: Partial<RuleDraft>) => void;
}) {
  return (
    <div className="rule-window">
      <CheckboxGroup
        name={`${prefix}.time_window.days`}
        legend="Days"
        options={DAYS.map((d) => ({ value: d, label: DAY_LABELS[d]! }))}
        value={rule.days}
        onChange={(days) => onPatch({ days: days as RuleDraft['days'] })}
      />
      <div className="grid-3">
        <TextField
          name={`${prefix}.time_window.start`}
          label="Start"
          type="time"
          value={rule.start}
          onChange={(start) => onPatch({ start })}
        />
        <TextField
          name={`${prefix}.time_window.end`}
          label="End (exclusive)"
          type="time"
          value={rule.end}
          onChange={(end) => onPatch({ end })}
          hint="Before the start: crosses midnight."
        />
        <TextField
          name={`${prefix}.time_window.timezone`}
          label="Time zone (IANA)"
          value={rule.timezone}
          onChange={(timezone) => onPatch({ timezone })}
          list={zonesId}
        />
      </div>
    </div>
  );
}

/** A rule's number and whether the last test picked it; moving it up or down, removing it. */
function RuleHead({
  index: i,
  count,
  wins,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  wins: boolean;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  return (
    <div className="rule-head">
      <h3>
        Rule {i + 1} {wins && <Badge value="would answer" tone="good" />}
      </h3>
      <div className="row-actions">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onMove(-1)}
          disabled={i === 0}
          aria-label={`Move rule ${i + 1} up`}
        >
          ↑ Up
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onMove(1)}
          disabled={i === count - 1}
          aria-label={`Move rule ${i + 1} down`}
        >
          ↓ Down
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger-quiet"
          onClick={onRemove}
          aria-label={`Remove rule ${i + 1}`}
        >
          Remove
        </button>
      </div>
    </div>
  );
}

/** The callers a rule allows and those it blocks. */
function CallerLists({
  rule,
  prefix,
  onPatch,
}: {
  rule: RuleDraft;
  prefix: string;
  onPatch: (patch: Partial<RuleDraft>) => void;
}) {
  return (
    <div className="grid-2">
      <TextArea
        name={`${prefix}.caller_id.allow`}
        label="Allow callers"
        rows={2}
        value={rule.allow}
        onChange={(allow) => onPatch({ allow })}
        placeholder="+4930, +14155550123, anonymous"
        hint="Numbers or +prefixes; empty allows everyone."
      />
      <TextArea
        name={`${prefix}.caller_id.block`}
        label="Block callers"
        rows={2}
        value={rule.block}
        onChange={(block) => onPatch({ block })}
        placeholder="+1900"
        hint="Block wins over allow."
      />
    </div>
  );
}
