// The SIP node's trunk manager: one REGISTER binding (sip/registration/binding.ts) for every trunk
// with `register` on and one OPTIONS pinger (sip/options-pinger.ts) for every trunk with
// `health_check` on, across workspaces. It reads the trunks at start (so a restarted node registers
// again) and then every SIP_TRUNK_SYNC_SECONDS (polling: trunks change rarely, and the store is what
// every node shares), starting, replacing (when a field the binding or pinger uses changed) and
// stopping (unregistering) them. What they find is written on the trunk: registration_status,
// registration_error and registered_until; health. It also tells the call host which trunk an
// inbound INVITE belongs to when it arrives on a registered Contact (trunkOfRequest).
import type { ServiceDeps } from '../../../modules/context.js';
import { sipLabelOf } from '../../../modules/calls/inbound-admission.js';
import { decryptTrunkPassword } from '../../../modules/sip-trunks/sip-trunks.service.js';
import type { TimerHandle } from '../../../shared/clock.js';
import { trunkWatch, type WatchedTrunk } from '../../../modules/sip-trunks/trunk-watch.service.js';
import type { SipRequest } from '../../sip/message/types.js';
import { OptionsPinger, type PingHealth, type PingStack } from '../../sip/options-pinger.js';
import { RegisterBinding, type BindingState, type RegistrarStack } from '../../sip/registration/binding.js';
import type { Destination } from '../../sip/transaction/types.js';
import type { ResolveTarget } from '../../sip/transport/resolve.js';
import type { Source } from '../../sip/transport/routing.js';
import {
  aorOf,
  contactOf,
  directDestination,
  localPort,
  peerOf,
  registrarOf,
  trunkOfToken,
  type LocalAddress,
  type PeerAddress,
} from './trunk-addresses.js';

/** What the manager needs of the SIP stack (SipStack has all of it). */
export interface TrunkStack extends RegistrarStack, PingStack {
  connectionTo(to: Destination): string | undefined;
}

export interface TrunkManagerOptions {
  readonly deps: Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'keys' | 'secretBox' | 'logger' | 'newId'>;
  readonly stack: TrunkStack;
  readonly local: LocalAddress;
  /** RFC 3263 for registrar and termination hosts (tests point names at sipp); none: as written. */
  readonly resolve?: (target: ResolveTarget) => Promise<Destination[]>;
  /** Default SIP_TRUNK_SYNC_SECONDS. */
  readonly syncMs?: number;
  /** Pinger timing; interval default SIP_OPTIONS_INTERVAL_SECONDS. */
  readonly ping?: { intervalMs?: number; timeoutMs?: number; downAfter?: number };
  /** Binding timing (tests). */
  readonly binding?: { expires?: number; firstRetryMs?: number; maxRetryMs?: number; keepAliveMs?: number };
}

interface Kept<T> {
  readonly key: string;
  readonly trunk: WatchedTrunk;
  readonly item: T;
  readonly destination: Destination;
}

/** How long stop() waits for the unregisters before it lets the sockets close. */
const UNREGISTER_WAIT_MS = 2_000;

export class TrunkManager {
  private readonly bindings = new Map<string, Kept<RegisterBinding>>();
  private readonly pingers = new Map<string, Kept<OptionsPinger>>();
  /** Trunks whose binding or pinger is being set up (DNS), so a sync does not start a second. */
  private readonly pending = new Set<string>();
  private readonly writes = new Map<string, Promise<void>>();
  private timer: TimerHandle | null = null;
  private syncing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly o: TrunkManagerOptions) {}

  private get deps() {
    return this.o.deps;
  }

  /** Reads the trunks and starts their bindings and pingers; then again every sync interval. */
  async start(): Promise<void> {
    await this.sync();
  }

  /** Reads the trunks now (also what the timer runs). Never rejects: failures are logged. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => {
      this.syncing = null;
      this.arm();
    });
    return this.syncing;
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    const ms = this.o.syncMs ?? this.deps.config.sip.trunkSyncSeconds * 1000;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.sync();
    }, ms);
  }

  private async syncOnce(): Promise<void> {
    if (this.stopped) return;
    let rows: WatchedTrunk[];
    try {
      rows = await trunkWatch.watched(this.deps);
    } catch (err) {
      this.deps.logger.warn({ err }, 'trunk manager could not read the trunks');
      return;
    }
    if (this.stopped) return;
    const registering = new Map(rows.filter((r) => r.register === 1).map((r) => [r.id, r]));
    const pinged = new Map(rows.filter((r) => r.health_check === 1).map((r) => [r.id, r]));
    for (const [id, kept] of this.bindings) {
      const row = registering.get(id);
      if (!row || bindingKey(row) !== kept.key) {
        this.bindings.delete(id);
        void kept.item.stop();
      }
    }
    for (const [id, kept] of this.pingers) {
      const row = pinged.get(id);
      if (!row || pingKey(row) !== kept.key) {
        this.pingers.delete(id);
        kept.item.stop();
      }
    }
    const starts: Promise<void>[] = [];
    for (const row of registering.values())
      if (!this.bindings.has(row.id) && !this.pending.has(`r${row.id}`)) starts.push(this.startBinding(row));
    for (const row of pinged.values())
      if (!this.pingers.has(row.id) && !this.pending.has(`p${row.id}`)) starts.push(this.startPinger(row));
    // One trunk that cannot start (a password the server key no longer opens) stops no other.
    const results = await Promise.allSettled(starts);
    for (const r of results)
      if (r.status === 'rejected')
        this.deps.logger.warn({ err: r.reason }, 'a trunk binding or pinger did not start');
  }

  private async destinationOf(peer: PeerAddress): Promise<Destination> {
    const direct = directDestination(peer);
    if (!this.o.resolve) return direct;
    const list = await this.o.resolve({
      host: peer.host,
      port: peer.port,
      transport: peer.transport.toLowerCase() as 'udp' | 'tcp' | 'tls',
      secure: peer.uri.startsWith('sips:'),
    });
    if (list.length === 0) throw new Error(`no address for ${peer.host}`);
    return list[0]!;
  }

  private async startBinding(row: WatchedTrunk): Promise<void> {
    const { deps } = this;
    const registrar = registrarOf(row);
    const failed = (error: string) =>
      this.writeRegistration(row.id, { status: 'failed', error, until: null });
    if (!registrar) return failed('registrar_uri (or termination_uri) does not parse');
    this.pending.add(`r${row.id}`);
    try {
      let destination: Destination;
      try {
        destination = await this.destinationOf(registrar);
      } catch (err) {
        // DNS failed: said on the trunk; the next sync tries again.
        return failed(`registrar address: ${(err as Error).message}`);
      }
      if (this.stopped) return;
      const port = localPort(this.o.local, destination.transport as 'UDP');
      const binding = new RegisterBinding({
        stack: this.o.stack,
        destination,
        registrar: registrar.uri,
        aor: aorOf(row, registrar),
        contact: contactOf(row, this.o.local, destination.transport as 'UDP', deps.keys.joinToken),
        via: `${this.o.local.host.includes(':') ? `[${this.o.local.host}]` : this.o.local.host}:${port}`,
        username: row.auth_username,
        password: decryptTrunkPassword(deps, row),
        newId: () => deps.newId().replace(/-/g, ''),
        onChange: (s) => this.onBinding(row.id, s),
        ...(this.o.binding ?? {}),
      });
      this.bindings.set(row.id, { key: bindingKey(row), trunk: row, item: binding, destination });
      // A restarted node's row may still say registered: it registers anew.
      await this.writeRegistration(row.id, { status: 'registering', error: null, until: null });
      binding.start();
    } finally {
      this.pending.delete(`r${row.id}`);
    }
  }

  private async startPinger(row: WatchedTrunk): Promise<void> {
    const peer = peerOf(row.termination_uri, row.transport);
    if (!peer) return;
    this.pending.add(`p${row.id}`);
    try {
      let destination: Destination;
      try {
        destination = await this.destinationOf(peer);
      } catch (err) {
        this.deps.logger.warn({ err, sip_trunk_id: row.id }, 'termination host has no address');
        return this.writeHealth(row.id, 'down');
      }
      if (this.stopped) return;
      const host = this.o.local.host.includes(':') ? `[${this.o.local.host}]` : this.o.local.host;
      const pinger = new OptionsPinger({
        stack: this.o.stack,
        destination,
        uri: peer.uri,
        via: `${host}:${localPort(this.o.local, destination.transport as 'UDP')}`,
        newId: () => this.deps.newId().replace(/-/g, ''),
        onChange: (health, why) => this.onHealth(row.id, health, why),
        intervalMs: this.o.ping?.intervalMs ?? this.deps.config.sip.optionsIntervalSeconds * 1000,
        ...(this.o.ping?.timeoutMs !== undefined ? { timeoutMs: this.o.ping.timeoutMs } : {}),
        ...(this.o.ping?.downAfter !== undefined ? { downAfter: this.o.ping.downAfter } : {}),
      });
      this.pingers.set(row.id, { key: pingKey(row), trunk: row, item: pinger, destination });
      pinger.start();
    } finally {
      this.pending.delete(`p${row.id}`);
    }
  }

  private onBinding(id: string, s: BindingState): void {
    const level = s.status === 'failed' ? 'warn' : 'info';
    this.deps.logger[level]({ sip_trunk_id: id, status: s.status, error: s.error }, 'trunk registration');
    void this.writeRegistration(id, {
      status: s.status,
      error: s.error,
      until: s.until,
    });
  }

  private onHealth(id: string, health: PingHealth, why: string | null): void {
    const level = health === 'down' ? 'warn' : 'info';
    this.deps.logger[level]({ sip_trunk_id: id, health, why }, 'trunk health');
    void this.writeHealth(id, health);
  }

  /** One write at a time per trunk and kind, in order; failures are logged, never thrown. */
  private queue(key: string, write: () => Promise<void>): Promise<void> {
    const next = (this.writes.get(key) ?? Promise.resolve())
      .then(write)
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'could not write a trunk finding'));
    this.writes.set(key, next);
    void next.then(() => {
      if (this.writes.get(key) === next) this.writes.delete(key);
    });
    return next;
  }

  private writeRegistration(
    id: string,
    r: { status: string; error: string | null; until: number | null },
  ): Promise<void> {
    return this.queue(`r${id}`, () => trunkWatch.registration(this.deps, id, r));
  }

  private writeHealth(id: string, health: string): Promise<void> {
    return this.queue(`p${id}`, () => trunkWatch.health(this.deps, id, health));
  }

  /**
   * The trunk an inbound INVITE came for by way of a registration: its Request-URI carries our
   * Contact's `sb-trunk` (with a MAC of ours), or, when the carrier rewrote the Request-URI to a
   * host that names no workspace, it arrived from a registrar we are bound at (over TCP/TLS: on the
   * connection the binding keeps open). Undefined: an ordinary INVITE (workspace by host).
   */
  trunkOfRequest(req: SipRequest, source: Source): string | undefined {
    if (req.uri.kind !== 'sip') return undefined;
    const token = req.uri.params.get('sb-trunk');
    if (token !== undefined && token !== null) {
      const id = trunkOfToken(this.deps.keys.joinToken, token);
      return id !== null && this.bindings.has(id) ? id : undefined;
    }
    if (sipLabelOf(req.uri.host, this.deps.config.sip.domain) !== null) return undefined;
    for (const [id, kept] of this.bindings) {
      const d = kept.destination;
      if (d.transport !== source.transport) continue;
      if (d.reliable) {
        if (source.connectionId !== undefined && this.o.stack.connectionTo(d) === source.connectionId)
          return id;
      } else if (d.host === source.address && d.port === source.port) return id;
    }
    return undefined;
  }

  /** Stops syncing and pinging, unregisters every binding (waiting at most 2 s), then resolves. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    for (const kept of this.pingers.values()) kept.item.stop();
    this.pingers.clear();
    const unregisters = [...this.bindings.values()].map((k) => k.item.stop());
    this.bindings.clear();
    let timer: TimerHandle | null = null;
    await Promise.race([
      Promise.all(unregisters),
      new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, UNREGISTER_WAIT_MS))),
    ]);
    if (timer) this.deps.clock.clearTimeout(timer);
    await Promise.all([...this.writes.values()]);
  }

  /** Tests and logs: what this node keeps. */
  get size(): { bindings: number; pingers: number } {
    return { bindings: this.bindings.size, pingers: this.pingers.size };
  }

  /** The binding's state for a trunk (tests). */
  bindingState(id: string): BindingState | undefined {
    return this.bindings.get(id)?.item.state;
  }
}

/** The fields a binding is built from: a change to any of them means a new binding. */
function bindingKey(r: WatchedTrunk): string {
  return JSON.stringify([
    r.registrar_uri,
    r.termination_uri,
    r.transport,
    r.auth_username,
    r.auth_password_enc,
  ]);
}

function pingKey(r: WatchedTrunk): string {
  return JSON.stringify([r.termination_uri, r.transport]);
}
