// Rules for SIP trunks: the carrier connection numbers live on. The password is sealed with the
// server key on the way in (outbound digest auth needs it back) and leaves only through
// decryptTrunkPassword, never in a response or a log. A trunk cannot go while numbers use it.
import type { PageParams } from '../../shared/paging.js';
import { ConflictError, FieldErrorBag, NotFoundError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { SipTrunkTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import type { CreateSipTrunk, SipTrunk, UpdateSipTrunk } from './sip-trunks.schema.js';
import { sipTrunksRepo } from './sip-trunks.repo.js';
import { normalizeCidr, parseTerminationUri } from './trunk-fields.js';

/** The workspace's inbound SIP address: stable per workspace, the transport as configured. */
export function originationUri(sipLabel: string, sipDomain: string, transport: string): string {
  return `sip:${sipLabel}.${sipDomain};transport=${transport}`;
}

/** The trunk's outbound digest password, for the dialer only. */
export function decryptTrunkPassword(deps: Pick<ServiceDeps, 'secretBox'>, row: SipTrunkTable): string {
  return deps.secretBox.open(row.auth_password_enc);
}

/** The trunk's allowed source CIDRs (empty: every source). */
export function trunkAllowedIps(row: SipTrunkTable): string[] {
  return parseJson<string[]>(row.allowed_ips, []);
}

export class SipTrunksService {
  constructor(private readonly deps: ServiceDeps) {}

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
    const allowed = checkAllowedIps(bag, input.allowed_ips ?? []);
    bag.throwIfAny();
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
    return inTransaction(this.deps.db, async (trx) => {
      const row = await this.require(trx, actor, id);
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
        updated_at: toDbTime(this.deps.clock.now()),
      };
      await sipTrunksRepo.update(trx, next);
      return this.view(next, await sipTrunksRepo.sipLabel(trx, actor.workspaceId));
    });
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
