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
    <div>
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
      {rules.map((rule, i) => {
        const prefix = `dispatch_rules.${i}`;
        return (
          <section className={`rule ${winner === i ? 'rule-win' : ''}`} key={i} aria-label={`Rule ${i + 1}`}>
            <div className="rule-head">
              <h3>
                Rule {i + 1} {winner === i && <Badge value="would answer" tone="good" />}
              </h3>
              <div className="row-actions">
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onChange(moveRule(rules, i, -1))}
                  disabled={i === 0}
                  aria-label={`Move rule ${i + 1} up`}
                >
                  ↑ Up
                </button>
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onChange(moveRule(rules, i, 1))}
                  disabled={i === rules.length - 1}
                  aria-label={`Move rule ${i + 1} down`}
                >
                  ↓ Down
                </button>
                <button
                  type="button"
                  className="btn btn-small btn-danger-quiet"
                  onClick={() => onChange(rules.filter((_, j) => j !== i))}
                  aria-label={`Remove rule ${i + 1}`}
                >
                  Remove
                </button>
              </div>
            </div>
            <div className="grid-2">
              <SelectField
                name={`${prefix}.workflow_id`}
                label="Workflow"
                value={rule.workflow_id}
                onChange={(workflow_id) => set(i, { workflow_id })}
                options={options}
                emptyLabel="Choose a workflow"
              />
              <TextField
                name={`${prefix}.priority`}
                label="Priority"
                inputMode="numeric"
                value={rule.priority}
                onChange={(priority) => set(i, { priority })}
                hint="Lower runs first."
              />
            </div>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={rule.hasWindow}
                onChange={(e) => set(i, { hasWindow: e.target.checked })}
              />
              Only during a time window
            </label>
            {rule.hasWindow && (
              <div className="rule-window">
                <CheckboxGroup
                  name={`${prefix}.time_window.days`}
                  legend="Days"
                  options={DAYS.map((d) => ({ value: d, label: DAY_LABELS[d]! }))}
                  value={rule.days}
                  onChange={(days) => set(i, { days: days as RuleDraft['days'] })}
                />
                <div className="grid-3">
                  <TextField
                    name={`${prefix}.time_window.start`}
                    label="Start"
                    type="time"
                    value={rule.start}
                    onChange={(start) => set(i, { start })}
                  />
                  <TextField
                    name={`${prefix}.time_window.end`}
                    label="End (exclusive)"
                    type="time"
                    value={rule.end}
                    onChange={(end) => set(i, { end })}
                    hint="Before the start: crosses midnight."
                  />
                  <TextField
                    name={`${prefix}.time_window.timezone`}
                    label="Time zone (IANA)"
                    value={rule.timezone}
                    onChange={(timezone) => set(i, { timezone })}
                    list={zonesId}
                  />
                </div>
              </div>
            )}
            <div className="grid-2">
              <TextArea
                name={`${prefix}.caller_id.allow`}
                label="Allow callers"
                rows={2}
                value={rule.allow}
                onChange={(allow) => set(i, { allow })}
                placeholder="+4930, +14155550123, anonymous"
                hint="Numbers or +prefixes; empty allows everyone."
              />
              <TextArea
                name={`${prefix}.caller_id.block`}
                label="Block callers"
                rows={2}
                value={rule.block}
                onChange={(block) => set(i, { block })}
                placeholder="+1900"
                hint="Block wins over allow."
              />
            </div>
            <KeyValueEditor
              name={`${prefix}.variables`}
              legend="Variables for the workflow"
              pairs={rule.variables}
              onChange={(variables) => set(i, { variables })}
            />
          </section>
        );
      })}
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
