// Dispatch rules as the editor holds them (strings as typed, so nothing is lost while a value is
// half-written) and as the API takes them. Pure functions, tested in dispatch-rules.test.ts.
import type { DispatchRule } from '../../api/types';
import { objectOf, pairsOf, type Pair } from '../../components/KeyValueEditor';

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export interface RuleDraft {
  workflow_id: string;
  priority: string;
  hasWindow: boolean;
  days: Day[];
  start: string;
  end: string;
  timezone: string;
  allow: string;
  block: string;
  variables: Pair[];
}

export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function newRule(priority: number, workflowId = ''): RuleDraft {
  return {
    workflow_id: workflowId,
    priority: String(priority),
    hasWindow: false,
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '09:00',
    end: '17:00',
    timezone: browserZone(),
    allow: '',
    block: '',
    variables: [],
  };
}

export function draftOfRule(rule: DispatchRule): RuleDraft {
  const base = newRule(rule.priority, rule.workflow_id);
  return {
    ...base,
    hasWindow: Boolean(rule.time_window),
    ...(rule.time_window
      ? {
          days: rule.time_window.days,
          start: rule.time_window.start,
          end: rule.time_window.end,
          timezone: rule.time_window.timezone,
        }
      : {}),
    allow: (rule.caller_id?.allow ?? []).join('\n'),
    block: (rule.caller_id?.block ?? []).join('\n'),
    variables: pairsOf(rule.variables),
  };
}

function list(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The rule as the API takes it. A priority that is not a number is sent as typed, so the API names it. */
export function ruleOfDraft(d: RuleDraft): Record<string, unknown> {
  const priority =
    d.priority.trim() === ''
      ? undefined
      : Number.isFinite(Number(d.priority))
        ? Number(d.priority)
        : d.priority;
  const allow = list(d.allow);
  const block = list(d.block);
  return {
    workflow_id: d.workflow_id,
    ...(priority !== undefined ? { priority } : {}),
    ...(d.hasWindow
      ? { time_window: { days: d.days, start: d.start, end: d.end, timezone: d.timezone } }
      : {}),
    ...(allow.length || block.length
      ? { caller_id: { ...(allow.length ? { allow } : {}), ...(block.length ? { block } : {}) } }
      : {}),
    variables: objectOf(d.variables),
  };
}

/**
 * Moves rule `index` one place up or down in evaluation order and renumbers every priority
 * 10, 20, 30…, so the order on screen is the order the API evaluates (lower first).
 */
export function moveRule(rules: RuleDraft[], index: number, direction: -1 | 1): RuleDraft[] {
  const target = index + direction;
  if (target < 0 || target >= rules.length) return rules;
  const next = [...rules];
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next.map((r, i) => ({ ...r, priority: String((i + 1) * 10) }));
}

/** Rules in the order the API evaluates them: ascending priority, stored order on ties. */
export function inEvaluationOrder(rules: DispatchRule[]): DispatchRule[] {
  return rules
    .map((rule, i) => ({ rule, i }))
    .sort((a, b) => a.rule.priority - b.rule.priority || a.i - b.i)
    .map((x) => x.rule);
}

/** IANA zones the browser knows, for the time window's zone picker. */
export function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf?.('timeZone') ?? [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}
