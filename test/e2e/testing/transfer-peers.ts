// Support for the transfer tests against real peers (test/e2e/transfer-*.test.ts): the store they
// run on (our number, its trunk, a call in progress), sipp as a party that echoes our media back
// (-rtp_echo), and the caller's phone joined to our caller session on loopback as the call host
// has them.
import { systemClock } from '../../../src/shared/clock.js';
import type { CallTable } from '../../../src/store/schema.js';
import { G711Codec } from '../../../src/audio/codecs/g711.js';
import type { RtpPortAllocator } from '../../../src/telephony/media/port-allocator.js';
import { RtpSession } from '../../../src/telephony/media/rtp-session.js';
import { freeUdpPort, run } from '../../support/media-harness.js';
import { startTestApi, type TestApi } from '../../support/api.js';
import { createProject, registerNumber } from '../../support/fixtures.js';
import { storeKinds } from '../../support/stores.js';

/** What a test file closes after each test, last first. */
export type Cleanup = Array<() => Promise<unknown>>;

export const OUR_NUMBER = '+14155550100';

/** Where OUR_NUMBER's trunk terminates, and how. */
export interface WorldTrunk {
  termination_uri: string;
  transport?: string;
  /** Digest credentials (the password is sealed as the service keeps it). */
  auth?: { username: string; password: string };
}

/**
 * A store (the first kind) with a project, OUR_NUMBER and its trunk, and a call in progress on
 * that number with +4930123456, either way.
 */
export async function transferWorld(
  cleanup: Cleanup,
  trunk: WorldTrunk,
  direction: 'inbound' | 'outbound',
): Promise<{ t: TestApi; call: CallTable }> {
  const t = await startTestApi(storeKinds()[0]!);
  cleanup.push(() => t.close());
  const projectId = await createProject(t);
  const { numberId, trunkId } = await registerNumber(t, t.workspaceId, projectId, OUR_NUMBER);
  await t.store.db
    .updateTable('sip_trunks')
    .set({
      termination_uri: trunk.termination_uri,
      ...(trunk.transport ? { transport: trunk.transport } : {}),
      ...(trunk.auth
        ? {
            auth_username: trunk.auth.username,
            auth_password_enc: t.deps.secretBox.seal(trunk.auth.password),
          }
        : {}),
    })
    .where('id', '=', trunkId)
    .execute();
  const now = new Date(t.clock.now()).toISOString();
  const [us, them] = [OUR_NUMBER, '+4930123456'];
  const call: CallTable = {
    id: t.deps.newId(),
    workspace_id: t.workspaceId,
    project_id: projectId,
    workflow_id: null,
    workflow_version: null,
    session_id: null,
    phone_number_id: numberId,
    direction,
    status: 'in_progress',
    from_number: direction === 'inbound' ? them : us,
    to_number: direction === 'inbound' ? us : them,
    duration_seconds: null,
    hangup_reason: null,
    metadata: '{}',
    variables: '{}',
    sip_call_id: null,
    started_at: now,
    ended_at: null,
    created_at: now,
    updated_at: now,
    node_id: t.deps.config.nodeId,
  };
  return { t, call };
}

/** sipp running `file` as one party on `port`, its media port echoing; killed at cleanup. */
export async function echoingSipp(file: string, port: number, timeout: string, cleanup: Cleanup) {
  const sipp = run('sipp', [
    '-sf',
    file,
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(await freeUdpPort()),
    '-rtp_echo',
    '-t',
    'u1',
    '-m',
    '1',
    '-nostdin',
    '-timeout',
    timeout,
    '-timeout_error',
  ]);
  cleanup.push(async () => sipp.kill());
  return sipp;
}

/** The caller's phone (counting loud frames) and our caller session, joined on loopback. */
export async function joinedCaller(ports: RtpPortAllocator, cleanup: Cleanup) {
  let loud = 0;
  const phone = new RtpSession({
    clock: systemClock,
    ports,
    host: '127.0.0.1',
    codec: new G711Codec('ulaw'),
    onAudio: (pcm) => {
      if (Math.max(...pcm) > 3000) loud++;
    },
  });
  const rtp = new RtpSession({ clock: systemClock, ports, host: '127.0.0.1', codec: new G711Codec('ulaw') });
  cleanup.push(
    () => phone.close(),
    () => rtp.close(),
  );
  const pp = await phone.bind();
  const pr = await rtp.bind();
  phone.setRemote({ address: '127.0.0.1', port: pr });
  rtp.setRemote({ address: '127.0.0.1', port: pp });
  phone.start();
  rtp.start();
  return { phone, rtp, loud: () => loud };
}

export function tone(n: number, freq = 1000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / 16000)),
  );
}
