// Rules for SIP trunks: the carrier connection numbers live on. The password is sealed with the
// server key on the way in (outbound digest auth needs it back) and leaves only through
// decryptTrunkPassword, never in a response or a log. A trunk cannot go while numbers use it.
import { dispatchChanged } from '../calls/dispatch-cache.js';
import type { LivePublisher } from '../../events/live-bus.js';
import type { PageParams } from '../../shared/paging.js';
import { ConflictError, FieldErrorBag, NotFoundError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { SipTrunkTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import type {
  CreateSipTrunk,
  RegistrationStatus,
  SipTrunk,
  TrunkHealth,
  UpdateSipTrunk,
} from './sip-trunks.schema.js';
import { sipTrunksRepo } from './sip-trunks.repo.js';
import { terminationProblem } from './carrier-profile.js';
import { normalizeCidr, parseTerminationUri } from './trunk-fields.js';

/** The workspace's inbound SIP address: stable per workspace, the transport as configured. */
export function originationUri(sipLabel: string, sipDomain: string, transport: string): string {
  return `sip:${sipLabel}.${sipDomain};transport=${transport}`;
}

/** A trunk's registration and health columns as a new trunk has them: both off. */
export const TRUNK_WATCH_OFF = {
  register: 0,
  registrar_uri: null,
  health_check: 0,
  registration_status: null,
  registration_error: null,
  registered_until: null,
  health: null,
} as const satisfies Partial<SipTrunkTable>;

/** The trunk's outbound digest password, for the dialer only. */
export function decryptTrunkPassword(deps: Pick<ServiceDeps, 'secretBox'>, row: SipTrunkTable): string {
  return deps.secretBox.open(row.auth_password_enc);
}

/** The trunk's allowed source CIDRs (empty: every source). */
export function trunkAllowedIps(row: Pick<SipTrunkTable, 'allowed_ips'>): string[] {
  return parseJson<string[]>(row.allowed_ips, []);
}

export class SipTrunksService {
  /** `live` tells the other nodes that a trunk changed (their dispatch caches forget it). */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly live?: LivePublisher,
  ) {}

  private view(row: SipTrunkTable, sipLabel: string): SipTrunk {
    return {
      id: row.id,
      name: row.name,
      provider: row.provider,
      termination_uri: row.termination_uri,
      auth_username: row.auth_username,
      transport: row.transport,
      allowed_ips: trunkAllowedIps(row),
      origination_uri: originationUri(sipLabel, this.deps.config.sip.domain, row.transport),
      status: row.status,
      register: row.register === 1,
      registrar_uri: row.registrar_uri,
      registration_status: row.register === 1 ? (row.registration_status as RegistrationStatus | null) : null,
      registration_error: row.register === 1 ? row.registration_error : null,
      registered_until: row.register === 1 && row.registered_until ? apiTime(row.registered_until) : null,
      health_check: row.health_check === 1,
      health: row.health_check === 1 ? (row.health as TrunkHealth | null) : null,
      created_at: apiTime(row.created_at),
      updated_at: apiTime(row.updated_at),
    };
  }

  async list(actor: Actor, page: PageParams) {
    const { rows, total } = await sipTrunksRepo.list(this.deps.db, actor.workspaceId, page);
    const label = await sipTrunksRepo.sipLabel(this.deps.db, actor.workspaceId);
    return { items: rows.map((r) => this.view(r, label)), total };
  }

  async get(actor: Actor, id: string): Promise<SipTrunk> {
    const row = await this.require(this.deps.db, actor, id);
    return this.view(row, await sipTrunksRepo.sipLabel(this.deps.db, actor.workspaceId));
  }

  async create(actor: Actor, input: CreateSipTrunk): Promise<SipTrunk> {
    const bag = new FieldErrorBag();
    const termination = checkTerminationUri(bag, input.termination_uri);
    checkProviderTermination(bag, input.provider, termination, input.transport);
    const allowed = checkAllowedIps(bag, input.allowed_ips ?? []);
    const registrar = checkRegistrarUri(bag, input.registrar_uri ?? null);
    bag.throwIfAny();
    const register = input.register === true;
    const healthCheck = input.health_check === true;
    const now = toDbTime(this.deps.clock.now());
    const row: SipTrunkTable = {
      id: this.deps.newId(),
      workspace_id: actor.workspaceId,
      name: input.name,
      provider: input.provider,
      termination_uri: termination,
      auth_username: input.auth_username,
      auth_password_enc: this.deps.secretBox.seal(input.auth_password),
      transport: input.transport,
      allowed_ips: JSON.stringify(allowed),
      status: 'active',
      created_at: now,
      updated_at: now,
      register: register ? 1 : 0,
      registrar_uri: registrar,
      health_check: healthCheck ? 1 : 0,
      // The SIP node takes it from here; until it has tried, the trunk is registering / unknown.
      registration_status: register ? 'registering' : null,
      registration_error: null,
      registered_until: null,
      health: healthCheck ? 'unknown' : null,
    };
    const label = await inTransaction(this.deps.db, async (trx) => {
      await sipTrunksRepo.insert(trx, row);
      return sipTrunksRepo.sipLabel(trx, actor.workspaceId);
    });
    this.deps.logger.info({ workspace_id: actor.workspaceId, sip_trunk_id: row.id }, 'sip trunk created');
    return this.view(row, label);
  }

  async update(actor: Actor, id: string, input: UpdateSipTrunk): Promise<SipTrunk> {
    const bag = new FieldErrorBag();
    const termination =
      input.termination_uri !== undefined ? checkTerminationUri(bag, input.termination_uri) : undefined;
    const allowed = input.allowed_ips !== undefined ? checkAllowedIps(bag, input.allowed_ips) : undefined;
    const registrar =
      input.registrar_uri !== undefined ? checkRegistrarUri(bag, input.registrar_uri) : undefined;
    const updated = await inTransaction(this.deps.db, async (trx) => {
      const row = await this.require(trx, actor, id);
      // The provider's rules hold for the trunk as it will be (a new transport can break them too).
      if (termination !== undefined || input.transport !== undefined) {
        checkProviderTermination(
          bag,
          row.provider,
          termination ?? row.termination_uri,
          input.transport ?? row.transport,
        );
      }
      bag.throwIfAny();
      const next: SipTrunkTable = {
        ...row,
        name: input.name ?? row.name,
        termination_uri: termination ?? row.termination_uri,
        auth_username: input.auth_username ?? row.auth_username,
        auth_password_enc:
          input.auth_password !== undefined
            ? this.deps.secretBox.seal(input.auth_password)
            : row.auth_password_enc,
        transport: input.transport ?? row.transport,
        allowed_ips: allowed !== undefined ? JSON.stringify(allowed) : row.allowed_ips,
        register: input.register === undefined ? row.register : input.register ? 1 : 0,
        registrar_uri: registrar !== undefined ? registrar : row.registrar_uri,
        health_check: input.health_check === undefined ? row.health_check : input.health_check ? 1 : 0,
        updated_at: toDbTime(this.deps.clock.now()),
      };
      const observed = observedAfterUpdate(row, next);
      const stored = { ...next, ...observed.fields };
      await sipTrunksRepo.update(trx, stored, observed);
      return this.view(stored, await sipTrunksRepo.sipLabel(trx, actor.workspaceId));
    });
    await dispatchChanged(this.deps, this.live, actor.workspaceId);
    return updated;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      await this.require(trx, actor, id, true);
      const numbers = await sipTrunksRepo.numbersOn(trx, actor.workspaceId, id);
      if (numbers.length) {
        const n = numbers.length;
        throw new ConflictError(
          `The SIP trunk still carries ${n} phone number${n > 1 ? 's' : ''} (${numbers.join(', ')}); delete ${n > 1 ? 'them' : 'it'} first.`,
          { phone_numbers: numbers },
        );
      }
      await sipTrunksRepo.delete(trx, actor.workspaceId, id);
    });
    await dispatchChanged(this.deps, this.live, actor.workspaceId);
  }

  /** The trunk row, or 404 (also for trunks of other workspaces). */
  async require(ex: Executor, actor: Actor, id: string, lock = false): Promise<SipTrunkTable> {
    const row = await sipTrunksRepo.find(ex, actor.workspaceId, id, lock ? this.deps.dialect : undefined);
    if (!row) throw new NotFoundError('SIP trunk');
    return row;
  }
}

function checkTerminationUri(bag: FieldErrorBag, input: string): string {
  const value = input.trim();
  if (!parseTerminationUri(value)) {
    bag.add(
      'termination_uri',
      'must be a SIP URI (sip:[user@]host[:port], sips:…) or host[:port], the host a DNS name, IPv4 or [IPv6]',
    );
  }
  return value;
}

/** A termination_uri of the right grammar must also be one its provider takes (carrier-profile.ts). */
function checkProviderTermination(
  bag: FieldErrorBag,
  provider: string,
  uri: string,
  transport: string,
): void {
  const target = parseTerminationUri(uri);
  if (!target || bag.errors.termination_uri) return;
  const problem = terminationProblem(provider, target, transport);
  if (problem) bag.add('termination_uri', problem);
}

/** registrar_uri takes termination_uri's forms; null (or absent) means the termination host. */
function checkRegistrarUri(bag: FieldErrorBag, input: string | null): string | null {
  if (input === null) return null;
  const value = input.trim();
  if (!parseTerminationUri(value)) {
    bag.add(
      'registrar_uri',
      'must be a SIP URI (sip:[user@]host[:port], sips:…) or host[:port], the host a DNS name, IPv4 or [IPv6]',
    );
  }
  return value;
}

/**
 * What the SIP node found out goes stale when what it acted on changes: a new registrar, account
 * or transport means registering afresh (`registering`), a new termination host means the health
 * is `unknown` again; turning either off clears it. Otherwise the node's findings stay untouched
 * (the update does not write them, so it cannot undo a write the node made meanwhile).
 */
function observedAfterUpdate(
  before: SipTrunkTable,
  after: SipTrunkTable,
): { registration: boolean; health: boolean; fields: Partial<SipTrunkTable> } {
  const fields: Partial<SipTrunkTable> = {};
  const registration =
    before.register !== after.register ||
    (after.register === 1 &&
      (before.registrar_uri !== after.registrar_uri ||
        before.termination_uri !== after.termination_uri ||
        before.transport !== after.transport ||
        before.auth_username !== after.auth_username ||
        before.auth_password_enc !== after.auth_password_enc));
  if (registration) {
    fields.registration_status = after.register === 1 ? 'registering' : null;
    fields.registration_error = null;
    fields.registered_until = null;
  }
  const health =
    before.health_check !== after.health_check ||
    (after.health_check === 1 &&
      (before.termination_uri !== after.termination_uri || before.transport !== after.transport));
  if (health) fields.health = after.health_check === 1 ? 'unknown' : null;
  return { registration, health, fields };
}

function checkAllowedIps(bag: FieldErrorBag, input: readonly string[]): string[] {
  const out: string[] = [];
  input.forEach((text, i) => {
    const cidr = normalizeCidr(text);
    if (cidr === null)
      bag.add(`allowed_ips.${i}`, 'must be an IPv4 or IPv6 CIDR (e.g. 203.0.113.0/24) or address');
    else if (!out.includes(cidr)) out.push(cidr);
  });
  return out;
}
