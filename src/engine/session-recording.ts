// Wires a live session to the store: transcript (conversation-recorder.ts) and usage
// (usage-meter.ts). The lead calls this right after creating a session; `flush()` after the
// session ends makes sure every row landed (e.g. before answering DELETE /sessions/{id}).
import type { Executor } from '../store/database.js';
import type { IdGenerator } from '../shared/ids.js';
import { ConversationRecorder } from './conversation-recorder.js';
import type { LiveSession } from './session-runtime.js';
import { UsageMeter } from './usage-meter.js';

export interface SessionRecordingOptions {
  db: Executor;
  workspaceId: string;
  projectId: string;
  now: number;
  newId?: IdGenerator;
  onError?: (err: unknown) => void;
}

export interface SessionRecording {
  recorder: ConversationRecorder;
  meter: UsageMeter;
  flush(): Promise<void>;
  detach(): void;
}

export function recordSession(session: LiveSession, options: SessionRecordingOptions): SessionRecording {
  const common = {
    db: options.db,
    workspaceId: options.workspaceId,
    ...(options.newId ? { newId: options.newId } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };
  const recorder = new ConversationRecorder({
    ...common,
    projectId: options.projectId,
    sessionId: session.id,
  });
  const meter = new UsageMeter({ ...common, projectId: options.projectId });
  const offs = [recorder.attach(session.events, options.now), meter.attach(session.events)];
  return {
    recorder,
    meter,
    flush: async () => {
      await recorder.flush();
      await meter.flush();
    },
    detach: () => offs.forEach((off) => off()),
  };
}
