// What a call asked for at its start besides its workflow (docs/calls.md, "Recording" and
// "Answering-machine detection"):
//   - `record`: both directions of the call's RTP session into a CallRecorder: left the far party
//     as its receiver plays it out (also while a warm transfer or dial bridge has the caller),
//     right what its sender puts on the wire (our speech, or the bridged party). A recording that
//     cannot start or fails part-way is noted on the call; the call goes on.
//   - `machine_detection`: the far party's first seconds through the answering-machine detector
//     (and, with `wait_for_beep`, a machine's greeting through the beep detector) before the
//     workflow starts; `answered_by` is stored on the call and seeds the workflow variable.
// The LiveCall calls these two; they know nothing of SIP.
import { AnsweringMachineDetector, AMD_DEFAULTS, type AnsweredBy } from '../../../audio/amd.js';
import { BeepDetector } from '../../../audio/beep.js';
import type { ServiceDeps } from '../../../modules/context.js';
import { CallRecorder } from '../../../modules/recordings/call-recorder.js';
import { RecordingsService } from '../../../modules/recordings/recordings.service.js';
import {
  CallRecordsService,
  type CallRecord as CallTable,
} from '../../../modules/calls/call-records.service.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { RtpCallMedia } from '../call-media/rtp-call-media.js';

type Deps = Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'logger'>;

/** Longest wait for the verdict when no audio arrives at all (the detector decides by 4 s of audio). */
export const AMD_TIMEOUT_MS = AMD_DEFAULTS.totalMs + 500;
/** Longest wait for a voicemail beep after a machine verdict (wait_for_beep). */
export const BEEP_TIMEOUT_MS = 30_000;

/** This process's recordings being written, by call id (a call is recorded once, from its answer). */
const recording = new Map<string, Promise<(() => Promise<void>) | null>>();

/** Records the call if it asked to and is not being recorded yet. Never throws. */
export function ensureCallRecording(deps: Deps, call: CallTable, rtp: RtpSession, media: RtpCallMedia): void {
  if (!call.record || recording.has(call.id)) return;
  recording.set(
    call.id,
    startCallRecording(deps, call, rtp, media).catch((err: unknown) => {
      deps.logger.error({ err, call_id: call.id }, 'could not start a call recording');
      return null;
    }),
  );
}

/** Finishes the call's recording, if it has one (the call's media is closing). */
export async function stopCallRecording(callId: string): Promise<void> {
  const started = recording.get(callId);
  if (!started) return;
  recording.delete(callId);
  await (
    await started
  )?.();
}

/**
 * An outbound call (or dial leg) was answered, before its answer is recorded: starts its
 * recording (so the greeting is in it) and runs answering-machine detection, so that call.started
 * and the workflow's first node both know `answered_by`. No-op for a leg without media.
 */
export async function beforeAnswer(
  deps: Deps,
  call: CallTable,
  leg: { media?: RtpCallMedia; rtp?: RtpSession | null },
  gone: AbortSignal,
): Promise<void> {
  if (!leg.media || !leg.rtp) return;
  ensureCallRecording(deps, call, leg.rtp, leg.media);
  await detectAnsweredBy(deps, call, leg.media, gone);
}

/** Starts recording a call with `record`; returns the stop (writes the rest and the header). */
export async function startCallRecording(
  deps: Deps,
  call: CallTable,
  rtp: RtpSession,
  media: RtpCallMedia,
  recordings: RecordingsService = new RecordingsService(deps),
): Promise<(() => Promise<void>) | null> {
  if (!call.record) return null;
  const file = await recordings.start(call.id);
  if (!file) return null;
  const recorder = new CallRecorder(file, {
    onFailure: (reason) => void recordings.failed(call.id, reason, true),
  });
  media.farTap = (pcm) => recorder.far(pcm);
  rtp.sender.onSent = (pcm) => recorder.service(pcm);
  return async () => {
    media.farTap = null;
    rtp.sender.onSent = null;
    await recorder.close();
  };
}

/**
 * Listens to the answered call for the verdict (at most AMD_TIMEOUT_MS), then with `wait_for_beep`
 * on a machine for its beep (at most BEEP_TIMEOUT_MS more); stores `answered_by` on the call.
 * `gone` ends the wait early (the callee hung up): `unknown`.
 */
export async function detectAnsweredBy(
  deps: Deps,
  call: CallTable,
  media: RtpCallMedia,
  gone: AbortSignal,
): Promise<AnsweredBy | null> {
  if (!call.machine_detection) return null;
  const verdict = await listenForAnsweredBy(
    deps.clock,
    (l) => media.onAudio(l),
    gone,
    call.wait_for_beep === 1,
  );
  await new CallRecordsService(deps as ServiceDeps).setAnsweredBy(call.id, verdict);
  return verdict;
}

/**
 * The detector on an answered party's audio (16 kHz frames from `onAudio`): the verdict within
 * AMD_TIMEOUT_MS, then with `waitForBeep` on a machine its beep (at most BEEP_TIMEOUT_MS more).
 * `gone` ends the wait early: the verdict so far, else `unknown`. Used by POST /calls calls and by
 * dial and warm-transfer legs (transfer-warm.ts).
 */
export function listenForAnsweredBy(
  clock: Deps['clock'],
  onAudio: (listener: (pcm: Int16Array) => void) => () => void,
  gone: AbortSignal,
  waitForBeep = false,
): Promise<AnsweredBy> {
  return new Promise<AnsweredBy>((resolve) => {
    const amd = new AnsweringMachineDetector({ sampleRate: 16000 });
    const beep = waitForBeep ? new BeepDetector({ sampleRate: 16000 }) : null;
    let answered: AnsweredBy | null = null;
    let done = false;
    let timer = clock.setTimeout(() => finish(answered ?? 'unknown'), AMD_TIMEOUT_MS);
    const finish = (by: AnsweredBy) => {
      if (done) return;
      done = true;
      off();
      clock.clearTimeout(timer);
      gone.removeEventListener('abort', onGone);
      resolve(by);
    };
    const onGone = () => finish(answered ?? 'unknown');
    const off = onAudio((pcm) => {
      const heardBeep = beep?.push(pcm);
      if (answered === 'machine' && heardBeep) return finish('machine');
      if (answered) return;
      const v = amd.push(pcm);
      if (!v) return;
      answered = v.answeredBy;
      if (answered !== 'machine' || !beep) return finish(answered);
      if (beep.beep) return finish('machine'); // it beeped already
      clock.clearTimeout(timer);
      timer = clock.setTimeout(() => finish('machine'), BEEP_TIMEOUT_MS);
    });
    if (gone.aborted) return finish('unknown');
    gone.addEventListener('abort', onGone);
  });
}
