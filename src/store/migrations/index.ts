// Every migration, in order. A static list (not a folder scan) so the compiled build and the
// TypeScript tests see exactly the same set. Add new ones at the end; never edit a released one.
import type { Migration } from 'kysely';
import * as m001 from './001-core.js';
import * as m002 from './002-webhooks.js';
import * as m003 from './003-resource-counts.js';
import * as m004 from './004-webhook-queue-retention.js';
import * as m005 from './005-call-api-json.js';
import * as m006 from './006-call-node.js';
import * as m007 from './007-message-latency.js';
import * as m009 from './009-call-recording.js';
import * as m010 from './010-trunk-registration.js';
import * as m011 from './011-call-parent.js';
import * as m012 from './012-message-interrupted.js';
import * as m013 from './013-conversation-steps.js';
import * as m014 from './014-call-parent-index.js';
import * as m015 from './015-message-heard.js';

// No 008: the trunk registration migration was written as 008 but landed after 009, so it was
// renumbered 010 before any release, keeping the names in the order they run.
export const migrations: Record<string, Migration> = {
  '001-core': m001,
  '002-webhooks': m002,
  '003-resource-counts': m003,
  '004-webhook-queue-retention': m004,
  '005-call-api-json': m005,
  '006-call-node': m006,
  '007-message-latency': m007,
  '009-call-recording': m009,
  '010-trunk-registration': m010,
  '011-call-parent': m011,
  '012-message-interrupted': m012,
  '013-conversation-steps': m013,
  '014-call-parent-index': m014,
  '015-message-heard': m015,
};
