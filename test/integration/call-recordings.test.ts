// Call recordings through the API: record and machine_detection on POST /calls and on dispatch
// rules, GET /calls/{id}/recording (whole, byte ranges, 416, foreign and absent 404s), the marks
// a failed recording leaves, and deletion after RECORDING_RETENTION_DAYS on the fake clock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endCall, markAnswered } from '../../src/modules/calls/call-lifecycle.js';
import type { Dialer } from '../../src/modules/calls/dialer.js';
import { CallRecorder } from '../../src/modules/recordings/call-recorder.js';
import { parseWavHeader } from '../../src/modules/recordings/wav.js';
import type { CallTable } from '../../src/store/schema.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow, registerNumber } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

type One = { data: Record<string, unknown> };

class HeldDialer implements Dialer {
  readonly dialed: CallTable[] = [];
  dial(call: CallTable): void {
    this.dialed.push(call);
  }
}

describe.each(storeKinds())('call recordings on $name', (kind) => {
  let t: TestApi;
  let dir: string;
  let projectId: string;
  let workflowId: string;
  const dialer = new HeldDialer();
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'recordings-'));
    t = await startTestApi(kind, {
      overrides: { dialer },
      config: { dataDir: dir, recordingRetentionDays: 30 },
    });
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId);
    await registerNumber(t, t.workspaceId, projectId, '+14155550100');
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const create = async (over: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v1/calls', {
      body: {
        project_id: projectId,
        workflow_id: workflowId,
        from: '+14155550100',
        to: '+442071838750',
        ...over,
      },
    });
    return res;
  };

  /** What the call controller does for a recorded call: 1 s of audio, then the end. */
  async function recordOneSecond(id: string): Promise<void> {
    const file = await t.services.recordings.start(id);
    const rec = new CallRecorder(file!);
    for (let i = 0; i < 50; i++) {
      rec.far(new Int16Array(320).fill(100));
      rec.service(new Int16Array(320).fill(-100));
    }
    await rec.close();
  }

  it('takes record, machine_detection and wait_for_beep on POST /calls, and shows the new fields', async () => {
    const res = await create({ record: true, machine_detection: true, wait_for_beep: true });
    expect(res.statusCode).toBe(201);
    const call = (res.data as One).data;
    expect(call).toMatchObject({ recording_url: null, recording_error: null, answered_by: null });
    expect(dialer.dialed.at(-1)).toMatchObject({ record: 1, machine_detection: 1, wait_for_beep: 1 });
    const plain = (await create()).data as One;
    expect(dialer.dialed.at(-1)).toMatchObject({ record: 0, machine_detection: 0, wait_for_beep: 0 });
    expect(plain.data.answered_by).toBeNull();

    const bad = await create({ wait_for_beep: true, record: 'yes' });
    expect(bad.statusCode).toBe(422);
    const noAmd = await create({ wait_for_beep: true });
    expect(noAmd.statusCode).toBe(422);
    expect(noAmd.data).toMatchObject({
      errors: { wait_for_beep: [expect.stringMatching(/machine_detection/)] },
    });
  });

  it('serves the recording whole and by byte range, 404 to other workspaces and for calls without one', async () => {
    const id = ((await create({ record: true })).data as One).data.id as string;
    expect((await t.call('GET', `/api/v1/calls/${id}/recording`)).statusCode).toBe(404);
    await recordOneSecond(id);
    const call = ((await t.call('GET', `/api/v1/calls/${id}`)).data as One).data;
    expect(call.recording_url).toBe(`http://localhost:8080/api/v1/calls/${id}/recording`);

    const whole = await t.call('GET', `/api/v1/calls/${id}/recording`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.rawPayload.length).toBe(44 + 16000 * 4);
    expect(parseWavHeader(whole.rawPayload)).toMatchObject({
      channels: 2,
      sampleRate: 16000,
      dataBytes: 64000,
    });

    const part = await t.call('GET', `/api/v1/calls/${id}/recording`, { headers: { range: 'bytes=44-47' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 44-47/64044');
    expect([...part.rawPayload]).toEqual([100, 0, 0x9c, 0xff]); // left 100, right -100
    const tail = await t.call('GET', `/api/v1/calls/${id}/recording`, { headers: { range: 'bytes=-4' } });
    expect(tail.headers['content-range']).toBe('bytes 64040-64043/64044');
    const past = await t.call('GET', `/api/v1/calls/${id}/recording`, { headers: { range: 'bytes=70000-' } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */64044');

    const other = await t.newWorkspace('other');
    expect((await t.call('GET', `/api/v1/calls/${id}/recording`, { key: other.key })).statusCode).toBe(404);
    const unknown = '01943a5c-8e00-7000-8000-00000000ffff';
    expect((await t.call('GET', `/api/v1/calls/${unknown}/recording`)).statusCode).toBe(404);
  });

  it('a recording that cannot be made leaves the reason on the call, and no recording', async () => {
    const id = ((await create({ record: true })).data as One).data.id as string;
    await t.services.recordings.failed(id, 'ENOSPC: no space left on device', false);
    const call = ((await t.call('GET', `/api/v1/calls/${id}`)).data as One).data;
    expect(call).toMatchObject({ recording_url: null, recording_error: 'ENOSPC: no space left on device' });
    expect((await t.call('GET', `/api/v1/calls/${id}/recording`)).statusCode).toBe(404);
  });

  it('deletes recordings RECORDING_RETENTION_DAYS after their call ended', async () => {
    const id = ((await create({ record: true })).data as One).data.id as string;
    await recordOneSecond(id);
    await markAnswered(t.store.db, t.deps, id);
    await endCall(t.store.db, t.deps, id, { status: 'completed', reason: 'callee_hangup' });
    t.clock.advance(29 * 24 * 3600 * 1000);
    await t.services.recordings.deleteExpired();
    expect((await t.call('GET', `/api/v1/calls/${id}/recording`)).statusCode).toBe(200);
    t.clock.advance(2 * 24 * 3600 * 1000);
    expect(await t.services.recordings.deleteExpired()).toBeGreaterThanOrEqual(1);
    expect((await t.call('GET', `/api/v1/calls/${id}/recording`)).statusCode).toBe(404);
    expect(((await t.call('GET', `/api/v1/calls/${id}`)).data as One).data.recording_url).toBeNull();
    expect(await t.services.recordings.storage.size(id)).toBeNull();
  });

  it('takes record on a dispatch rule', async () => {
    const res = await t.call('POST', '/api/v1/phone-numbers', {
      body: {
        number: '+14155550177',
        sip_trunk_id: (await t.store.db.selectFrom('sip_trunks').select('id').executeTakeFirstOrThrow()).id,
        project_id: projectId,
        dispatch_rules: [{ workflow_id: workflowId, record: true }, { workflow_id: workflowId }],
      },
    });
    expect(res.statusCode).toBe(201);
    const rules = (res.data as One).data.dispatch_rules as Array<Record<string, unknown>>;
    expect(rules[0]!.record).toBe(true);
    expect(rules[1]).not.toHaveProperty('record');
  });
});
