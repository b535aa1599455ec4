// What a SIP node's trunk manager (telephony/calls/trunks) reads and writes: the trunks that ask for
// registration or OPTIONS pings, across workspaces (it acts for the service, not for a caller),
// and its findings on them (registration state, health), each written only while the trunk still
// asks for it.
import { toDbTime } from '../../store/database.js';
import type { SipTrunkTable } from '../../store/schema.js';
import type { ServiceDeps } from '../context.js';
import { sipTrunksRepo } from './sip-trunks.repo.js';

export type WatchedTrunk = SipTrunkTable;

type Deps = Pick<ServiceDeps, 'db'>;

export const trunkWatch = {
  watched(deps: Deps): Promise<WatchedTrunk[]> {
    return sipTrunksRepo.watched(deps.db);
  },

  /** `until`: epoch ms, or null when not registered. */
  registration(
    deps: Deps,
    id: string,
    r: { status: string; error: string | null; until: number | null },
  ): Promise<void> {
    const until = r.until === null ? null : toDbTime(r.until);
    return sipTrunksRepo.setRegistration(deps.db, id, { status: r.status, error: r.error, until });
  },

  health(deps: Deps, id: string, health: string): Promise<void> {
    return sipTrunksRepo.setHealth(deps.db, id, health);
  },
};
