// The factory the wiring hands the session host: every web session's peer connection on this node
// is made here, with the configured addresses and one shared 20 ms frame clock for all of them
// (as a SIP node's calls share theirs), so a hundred sessions cost one timer, not two hundred.
import type { WebPeerFactory } from '../channels/web-media.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { SharedPacer } from '../telephony/media/shared-pacer.js';
import { WebRtcPeer } from './peer.js';

export interface WebPeersOptions {
  clock: Clock;
  host: string;
  publicIp?: string;
  portRange?: { min: number; max: number };
  logger?: Pick<Logger, 'warn'>;
}

export function createWebPeerFactory(options: WebPeersOptions): WebPeerFactory {
  const pacer = new SharedPacer(options.clock);
  return () =>
    new WebRtcPeer({
      clock: options.clock,
      host: options.host,
      pacer,
      ...(options.publicIp ? { publicIp: options.publicIp } : {}),
      ...(options.portRange ? { portRange: options.portRange } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
}
