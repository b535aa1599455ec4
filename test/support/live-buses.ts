// The live-event buses a multi-node test runs on: the in-process hub always, and the real Redis
// when TEST_REDIS_URL is set (each network on a channel of its own, so suites run side by side).
import { randomBytes } from 'node:crypto';
import { LocalLiveHub, MemoryLiveBus, type LiveBus } from '../../src/events/live-bus.js';
import { RedisLiveBus } from '../../src/events/redis-live-bus.js';
import { silentLogger } from '../../src/shared/logger.js';
import { storeKinds } from './stores.js';

export interface BusKind {
  name: string;
  /** A new network: the buses of one suite's nodes, which hear each other. */
  network(): (nodeId: string) => Promise<LiveBus>;
}

/** Every bus this machine can run; `channelPrefix` names the suite in Redis (`test:<prefix>:…`). */
export function busKinds(channelPrefix: string): BusKind[] {
  const kinds: BusKind[] = [
    {
      name: 'the in-process hub',
      network() {
        const hub = new LocalLiveHub();
        return async (nodeId) => new MemoryLiveBus(nodeId, silentLogger(), hub);
      },
    },
  ];
  const url = process.env.TEST_REDIS_URL;
  if (url) {
    kinds.push({
      name: 'Redis',
      network() {
        const channel = `test:${channelPrefix}:${randomBytes(4).toString('hex')}`;
        return async (nodeId) => {
          const bus = new RedisLiveBus({ url, nodeId, logger: silentLogger(), channel });
          // Until its SUBSCRIBE is acknowledged a node would miss what the other sends.
          await bus.ready();
          return bus;
        };
      },
    });
  }
  return kinds;
}

/** Every store kind with every bus kind, for describe.each (`$name` reads "sqlite, Redis"). */
export function storeAndBusCases(channelPrefix: string) {
  return storeKinds().flatMap((store) =>
    busKinds(channelPrefix).map((bus) => ({ store, bus, name: `${store.name}, ${bus.name}` })),
  );
}
