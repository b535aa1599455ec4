// What a node does with the live events other nodes send (live-bus.ts): a force-ended session is
// aborted if its execution runs here, a cancelled call gets its CANCEL if it rings from here, a
// revoked key or an edited trunk or number empties the cache that held it. All
// are no-ops for what is not live in this process, so every node can simply act on every message.
import type { Logger } from '../shared/logger.js';
import type { SessionEndReason } from '../shared/session-end-reasons.js';
import type { LiveBus } from './live-bus.js';

export interface LiveTargets {
  /** The session host of this process (realtime sockets, phone calls): SessionHost. */
  sessions?: { abort(sessionId: string, reason: SessionEndReason): void };
  /** The SIP dialer of this process (roles all and sip): SipDialer. True if it was live here. */
  calls?: { cancelLive(callId: string): Promise<boolean> };
  /** This process's cache of API keys (KeyCache), null when it keeps none. */
  keys?: { clear(): void } | null;
  /** This process's cache of inbound admission's number lookups (DispatchCache), if any. */
  dispatch?: { clear(): void } | null;
  logger: Logger;
}

/** Acts on other nodes' live events until the returned function is called. */
export function followLiveEvents(bus: LiveBus, targets: LiveTargets): () => void {
  const { logger } = targets;
  return bus.subscribe(async (m) => {
    switch (m.kind) {
      case 'session.end':
        logger.debug({ session_id: m.session_id, from: m.node_id }, 'live event: session.end');
        targets.sessions?.abort(m.session_id, m.reason);
        return;
      case 'call.cancel':
        if (await targets.calls?.cancelLive(m.call_id)) {
          logger.info({ call_id: m.call_id, from: m.node_id }, 'cancelled a call for another node');
        }
        return;
      case 'api_key.revoked':
        logger.debug({ key_id: m.key_id, from: m.node_id }, 'live event: api_key.revoked');
        targets.keys?.clear();
        return;
      case 'dispatch.changed':
        logger.debug({ workspace_id: m.workspace_id, from: m.node_id }, 'live event: dispatch.changed');
        targets.dispatch?.clear();
        return;
    }
  });
}
