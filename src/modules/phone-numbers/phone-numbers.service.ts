// Rules for phone numbers: an E.164 number on a trunk of the same workspace, in one of its
// projects, carrying the dispatch rules that pick the workflow for inbound calls. Every request
// is validated in full (all field errors at once) inside the transaction that writes it.
import { dispatchChanged } from '../calls/dispatch-cache.js';
import type { LivePublisher } from '../../events/live-bus.js';
import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { PageParams } from '../../shared/paging.js';
import { FieldErrorBag, NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, toDbTime, type Executor } from '../../store/database.js';
import type { PhoneNumberTable } from '../../store/schema.js';
import type { DispatchRule } from './dispatch/rule.js';
import type { Actor, ServiceDeps } from '../context.js';
import { sipTrunksRepo } from '../sip-trunks/sip-trunks.repo.js';
import { dispatchTestReport, parseDispatchTest } from './dispatch-test.js';
import { referencedWorkflows, validateDispatchRules } from './dispatch-rules.validate.js';
import { phoneNumbersRepo, rulesOf } from './phone-numbers.repo.js';
import type {
  CreatePhoneNumber,
  DispatchRuleInput,
  DispatchTestBody,
  DispatchTestResult,
  PhoneNumber,
  UpdatePhoneNumber,
} from './phone-numbers.schema.js';

/** `+14155550123`, `+1 415-555-0123` → `+14155550123`; null unless a valid E.164 number. */
export function normalizeE164(input: string): string | null {
  const text = input.trim();
  if (!text.startsWith('+') || !isValidPhoneNumber(text)) return null;
  return parsePhoneNumberFromString(text)?.number ?? null;
}

export function toPhoneNumber(row: PhoneNumberTable): PhoneNumber {
  return {
    id: row.id,
    number: row.number,
    sip_trunk_id: row.sip_trunk_id,
    project_id: row.project_id,
    label: row.label,
    dispatch_rules: rulesOf(row),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || /UNIQUE constraint failed/i.test(e.message ?? '');
}

const ALREADY_REGISTERED = 'is already registered in this workspace';

export class PhoneNumbersService {
  /** `live` tells the other nodes that a number changed (their dispatch caches forget it). */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly live?: LivePublisher,
  ) {}

  async list(actor: Actor, page: PageParams, filter: { project_id?: string } = {}) {
    const { rows, total } = await phoneNumbersRepo.list(this.deps.db, actor.workspaceId, page, {
      projectId: filter.project_id,
    });
    return { items: rows.map(toPhoneNumber), total };
  }

  async get(actor: Actor, id: string): Promise<PhoneNumber> {
    return toPhoneNumber(await this.require(this.deps.db, actor, id));
  }

  /** The number row, or 404 (also for numbers of other workspaces). */
  async require(ex: Executor, actor: Actor, id: string): Promise<PhoneNumberTable> {
    const row = await phoneNumbersRepo.find(ex, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Phone number');
    return row;
  }

  async create(actor: Actor, input: CreatePhoneNumber): Promise<PhoneNumber> {
    const ws = actor.workspaceId;
    try {
      return await inTransaction(this.deps.db, async (trx) => {
        const bag = new FieldErrorBag();
        const number = normalizeE164(input.number);
        if (number === null) bag.add('number', 'must be a valid E.164 phone number, e.g. +14155550123');
        else if (await phoneNumbersRepo.findByNumber(trx, ws, number)) bag.add('number', ALREADY_REGISTERED);
        // Locking the trunk row makes a concurrent trunk DELETE wait for this number (PostgreSQL).
        if (!(await sipTrunksRepo.find(trx, ws, input.sip_trunk_id, this.deps.dialect))) {
          bag.add('sip_trunk_id', 'does not name a SIP trunk of this workspace');
        }
        if (!(await phoneNumbersRepo.projectExists(trx, ws, input.project_id))) {
          bag.add('project_id', 'does not name a project of this workspace');
        }
        const rules = await this.checkRules(trx, bag, ws, input.dispatch_rules ?? []);
        bag.throwIfAny();
        const now = toDbTime(this.deps.clock.now());
        const row: PhoneNumberTable = {
          id: this.deps.newId(),
          workspace_id: ws,
          project_id: input.project_id,
          sip_trunk_id: input.sip_trunk_id,
          number: number!,
          label: input.label ?? null,
          dispatch_rules: JSON.stringify(rules),
          created_at: now,
          updated_at: now,
        };
        await phoneNumbersRepo.insert(trx, row);
        return toPhoneNumber(row);
      });
    } catch (err) {
      // Two registrations of one number racing: the unique index decides, the loser gets the 422.
      if (isUniqueViolation(err)) throw ValidationError.field('number', ALREADY_REGISTERED);
      throw err;
    }
  }

  async update(actor: Actor, id: string, input: UpdatePhoneNumber): Promise<PhoneNumber> {
    const ws = actor.workspaceId;
    const updated = await inTransaction(this.deps.db, async (trx) => {
      const row = await this.require(trx, actor, id);
      const bag = new FieldErrorBag();
      if (
        input.project_id !== undefined &&
        !(await phoneNumbersRepo.projectExists(trx, ws, input.project_id))
      ) {
        bag.add('project_id', 'does not name a project of this workspace');
      }
      const rules =
        input.dispatch_rules !== undefined
          ? await this.checkRules(trx, bag, ws, input.dispatch_rules)
          : undefined;
      bag.throwIfAny();
      const next: PhoneNumberTable = {
        ...row,
        label: input.label !== undefined ? input.label : row.label,
        project_id: input.project_id ?? row.project_id,
        dispatch_rules: rules !== undefined ? JSON.stringify(rules) : row.dispatch_rules,
        updated_at: toDbTime(this.deps.clock.now()),
      };
      await phoneNumbersRepo.update(trx, next);
      return toPhoneNumber(next);
    });
    await dispatchChanged(this.deps, this.live, ws);
    return updated;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      await this.require(trx, actor, id);
      await phoneNumbersRepo.delete(trx, actor.workspaceId, id);
    });
    await dispatchChanged(this.deps, this.live, actor.workspaceId);
  }

  /** Which rule would answer a call now (or at `at`), without placing one. */
  async dispatchTest(actor: Actor, id: string, body: DispatchTestBody): Promise<DispatchTestResult> {
    const row = await this.require(this.deps.db, actor, id);
    return dispatchTestReport(rulesOf(row), parseDispatchTest(body, this.deps.clock.now()));
  }

  private async checkRules(
    ex: Executor,
    bag: FieldErrorBag,
    workspaceId: string,
    input: readonly DispatchRuleInput[],
  ): Promise<DispatchRule[]> {
    const known = await phoneNumbersRepo.existingWorkflows(ex, workspaceId, referencedWorkflows(input));
    return validateDispatchRules(bag, input, known);
  }
}
