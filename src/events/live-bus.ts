// Live events: what one node must tell the node where a session or a call actually runs, because
// the API request that ends it may land anywhere. DELETE /sessions/{id} ends the record wherever it
// arrives, but the execution runs on the node holding the realtime socket or the call; DELETE
// /calls/{id} ends the record, but only the dialing node can put CANCEL on the wire.
// The in-process bus here is the default (one process: nothing leaves it); with REDIS_URL every
// node uses redis-live-bus.ts. Delivery is best effort (pub/sub, no replay), so receivers act
// idempotently and the store stays the truth: a missed message leaves the record right and only
// the execution or the ringing running on until it ends by itself.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import { SESSION_END_REASONS, type SessionEndReason } from '../shared/session-end-reasons.js';

/** What nodes tell each other. */
export type LiveEvent =
  /** A session's record ended here: the node running its execution aborts it. */
  | { kind: 'session.end'; session_id: string; reason: SessionEndReason }
  /** A ringing outbound call's record was cancelled here: the dialing node sends CANCEL. */
  | { kind: 'call.cancel'; call_id: string }
  /** An API key was revoked here: every node forgets the keys it cached (modules/api-keys/key-cache.ts). */
  | { kind: 'api_key.revoked'; key_id: string }
  /**
   * A SIP trunk or phone number (its dispatch rules) changed here: every node forgets what inbound
   * admission cached about called numbers (modules/calls/dispatch-cache.ts).
   */
  | { kind: 'dispatch.changed'; workspace_id: string };

/** An event as it travels: with the sender, for logs (node_id) and to skip our own (origin). */
export type LiveMessage = LiveEvent & {
  /** SWITCHBOARD_NODE_ID of the sender. */
  node_id: string;
  /**
   * One tag per bus instance (per process). Not the node id: an `api` and a `sip` process on one
   * host both default to `<host>:5060`, and each must still hear the other.
   */
  origin: string;
};

export type LiveHandler = (message: LiveMessage) => void | Promise<void>;

export interface LiveBus {
  /** This bus's tag; it does not hand its own messages back (the sender acted locally already). */
  readonly origin: string;
  /** Tells every other node. Rejects when the message could not be sent. */
  publish(event: LiveEvent): Promise<void>;
  /** Handles other nodes' messages until the returned function is called. */
  subscribe(handler: LiveHandler): () => void;
  /** Resolves once messages from other nodes can arrive (Redis: the SUBSCRIBE is acknowledged). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** What services need of the bus: they only send. */
export type LivePublisher = Pick<LiveBus, 'publish'>;

/**
 * Sends an event on behalf of a request whose record change is stored already: a failure (Redis
 * away) is logged, not thrown, since the request did what it said and failing it would undo
 * nothing. The node that missed it runs on until the execution or the ringing ends by itself.
 */
export async function announce(
  bus: LivePublisher | undefined,
  event: LiveEvent,
  logger: Pick<Logger, 'error'>,
): Promise<void> {
  if (!bus) return;
  try {
    await bus.publish(event);
  } catch (err) {
    logger.error({ err, event }, 'could not tell the other nodes a live event');
  }
}

/** Ids are ours (UUIDv7) but come off the wire here: bounded and printable before anyone uses them. */
const ID = /^[A-Za-z0-9._:-]{1,100}$/;
const REASONS: ReadonlySet<string> = new Set(SESSION_END_REASONS);

/** Parses one message off the wire; a string saying what is wrong when it is not one of ours. */
export function parseLiveMessage(raw: string): LiveMessage | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const m = value as Record<string, unknown>;
  const id = (v: unknown) => typeof v === 'string' && ID.test(v);
  if (!id(m.node_id) || !id(m.origin)) return 'no valid node_id and origin';
  const from = { node_id: m.node_id as string, origin: m.origin as string };
  switch (m.kind) {
    case 'session.end':
      if (!id(m.session_id)) return 'session.end without a valid session_id';
      // The receiver writes the reason into the session row should its ending win: only ours.
      if (typeof m.reason !== 'string' || !REASONS.has(m.reason)) return 'session.end with an unknown reason';
      return {
        kind: 'session.end',
        session_id: m.session_id as string,
        reason: m.reason as SessionEndReason,
        ...from,
      };
    case 'call.cancel':
      if (!id(m.call_id)) return 'call.cancel without a valid call_id';
      return { kind: 'call.cancel', call_id: m.call_id as string, ...from };
    case 'api_key.revoked':
      if (!id(m.key_id)) return 'api_key.revoked without a valid key_id';
      return { kind: 'api_key.revoked', key_id: m.key_id as string, ...from };
    case 'dispatch.changed':
      if (!id(m.workspace_id)) return 'dispatch.changed without a valid workspace_id';
      return { kind: 'dispatch.changed', workspace_id: m.workspace_id as string, ...from };
    default:
      return `unknown kind ${JSON.stringify(String(m.kind).slice(0, 40))}`;
  }
}

/** A fresh origin tag for a bus. */
export function newOrigin(): string {
  return randomBytes(8).toString('hex');
}

/**
 * The handlers of one bus: parses each raw message, drops its own and bad ones (logged), and runs
 * every handler so that none can throw into the transport (a Redis client's event loop).
 */
export class LiveHandlers {
  private readonly handlers = new Set<LiveHandler>();

  constructor(
    private readonly origin: string,
    private readonly logger: Logger,
  ) {}

  add(handler: LiveHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  deliver(raw: string): void {
    const message = parseLiveMessage(raw);
    if (typeof message === 'string') {
      this.logger.warn({ problem: message, raw: raw.slice(0, 200) }, 'ignored a malformed live event');
      return;
    }
    if (message.origin === this.origin) return;
    for (const handler of [...this.handlers]) {
      try {
        void Promise.resolve(handler(message)).catch((err: unknown) => this.failed(err, message));
      } catch (err) {
        this.failed(err, message);
      }
    }
  }

  private failed(err: unknown, message: LiveMessage): void {
    this.logger.error({ err, event: message }, 'a live event handler failed');
  }
}

/** The buses of one process that hear each other: one per node in tests, one in all in `serve`. */
export class LocalLiveHub {
  readonly buses = new Set<MemoryLiveBus>();

  /** Hands a raw message to every bus of the hub (each skips its own). */
  deliver(raw: string): void {
    for (const bus of [...this.buses]) bus.receive(raw);
  }
}

/**
 * The in-process bus: without REDIS_URL a process has one on a hub of its own, so nothing leaves
 * the process (another node never hears it). Messages still travel as JSON through the same
 * parser as Redis's, so both buses accept exactly the same messages.
 */
export class MemoryLiveBus implements LiveBus {
  readonly origin = newOrigin();
  private readonly handlers: LiveHandlers;
  private closed = false;

  constructor(
    private readonly nodeId: string,
    logger: Logger,
    private readonly hub: LocalLiveHub = new LocalLiveHub(),
  ) {
    this.handlers = new LiveHandlers(this.origin, logger);
    hub.buses.add(this);
  }

  async publish(event: LiveEvent): Promise<void> {
    if (this.closed) throw new Error('the live event bus is closed');
    const message: LiveMessage = { ...event, node_id: this.nodeId, origin: this.origin };
    this.hub.deliver(JSON.stringify(message));
  }

  subscribe(handler: LiveHandler): () => void {
    return this.handlers.add(handler);
  }

  /** From the hub. */
  receive(raw: string): void {
    if (!this.closed) this.handlers.deliver(raw);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    this.hub.buses.delete(this);
  }
}
