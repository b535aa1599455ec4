// The node's media worker pool, started at the priority MEDIA_WORKER_NICE asks for. Refused (not
// root, no CAP_SYS_NICE or LimitNICE), the node runs on at the default priority and says so once:
// media still leaves the main thread, but on a machine short of CPU the API competes with it.
import type { Logger } from '../../../shared/logger.js';
import { MediaWorkerPool } from '../../media/workers/media-worker-pool.js';

export async function startMediaWorkers(
  count: number,
  nice: number,
  logger: Logger,
): Promise<MediaWorkerPool> {
  const pool = await MediaWorkerPool.start(count, { nice });
  const { niceError } = pool.priority;
  if (niceError !== null) {
    logger.warn(
      { mediaWorkerNice: nice, code: niceError },
      'media workers kept the default scheduling priority: grant CAP_SYS_NICE (or LimitNICE= in the systemd unit) so calls\u2019 audio wins the CPU from the API under load, or set MEDIA_WORKER_NICE=0 to silence this',
    );
  }
  return pool;
}
