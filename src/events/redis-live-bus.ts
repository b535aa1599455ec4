// The live-event bus between nodes when REDIS_URL is set: Redis pub/sub on one channel, JSON
// messages (live-bus.ts). A connection in subscriber mode can run no other command, so publishing
// has its own. ioredis reconnects and subscribes again by itself; while Redis is away messages are
// lost (pub/sub keeps nothing), which live-bus.ts explains is tolerable.
import { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import {
  LiveHandlers,
  MemoryLiveBus,
  newOrigin,
  type LiveBus,
  type LiveEvent,
  type LiveHandler,
  type LiveMessage,
} from './live-bus.js';

export const LIVE_CHANNEL = 'switchboard:live';

/** The bus `serve` runs: Redis with REDIS_URL, else in-process (this node alone hears it). */
export function createLiveBus(
  config: { redisUrl: string | undefined; nodeId: string },
  logger: Logger,
): LiveBus {
  return config.redisUrl
    ? new RedisLiveBus({ url: config.redisUrl, nodeId: config.nodeId, logger })
    : new MemoryLiveBus(config.nodeId, logger);
}

export interface RedisLiveBusOptions {
  url: string;
  /** SWITCHBOARD_NODE_ID, carried by every message this node sends. */
  nodeId: string;
  logger: Logger;
  /** Tests: a channel of their own, so parallel runs on one Redis do not hear each other. */
  channel?: string;
}

export class RedisLiveBus implements LiveBus {
  readonly origin = newOrigin();
  readonly channel: string;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers: LiveHandlers;
  private readonly subscribed: Promise<void>;
  /** Whether the last thing a connection reported was an error, so an outage is logged once. */
  private readonly down = { pub: false, sub: false };
  private closing: Promise<void> | null = null;

  constructor(private readonly o: RedisLiveBusOptions) {
    this.channel = o.channel ?? LIVE_CHANNEL;
    this.handlers = new LiveHandlers(this.origin, o.logger);
    // A publish waits out at most two reconnection attempts: the DELETE that sends it is not held
    // up for long by an outage (it logs and answers, the record being ended already).
    this.pub = new Redis(o.url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    this.sub = new Redis(o.url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
    this.watch(this.pub, 'pub');
    this.watch(this.sub, 'sub');
    this.sub.on('message', (channel: string, raw: string) => {
      if (channel === this.channel) this.handlers.deliver(raw);
    });
    this.subscribed = this.sub.subscribe(this.channel).then(() => undefined);
    // Awaited by ready(); until then (or when it never comes) the failure is only logged here.
    this.subscribed.catch((err: unknown) => {
      if (!this.closing) o.logger.error({ err, channel: this.channel }, 'could not subscribe to live events');
    });
  }

  async publish(event: LiveEvent): Promise<void> {
    const message: LiveMessage = { ...event, node_id: this.o.nodeId, origin: this.origin };
    await this.pub.publish(this.channel, JSON.stringify(message));
  }

  subscribe(handler: LiveHandler): () => void {
    return this.handlers.add(handler);
  }

  ready(): Promise<void> {
    return this.subscribed;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await hangUp(this.sub);
      await hangUp(this.pub);
    })();
    return this.closing;
  }

  /**
   * ioredis reports every failed reconnection attempt; one line when a connection goes down and
   * one when it is back keep an outage readable (and an unhandled 'error' event would be printed
   * by ioredis itself).
   */
  private watch(redis: Redis, name: 'pub' | 'sub'): void {
    redis.on('error', (err: unknown) => {
      if (this.down[name]) return;
      this.down[name] = true;
      this.o.logger.error({ err, connection: name }, 'live events: Redis connection lost');
    });
    redis.on('ready', () => {
      if (!this.down[name]) return;
      this.down[name] = false;
      this.o.logger.info({ connection: name }, 'live events: Redis connection back');
    });
  }
}

/**
 * QUIT on a connection that is up; otherwise drop it. A QUIT sent while Redis is away waits in the
 * offline queue for a connection that may never come (forever on the subscriber, which retries
 * without limit), and would hold up shutdown.
 */
async function hangUp(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
