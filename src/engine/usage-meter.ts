// Meters usage from the event stream into `usage_events`: `llm_input_tokens` and
// `llm_output_tokens` (per model call, with the provider id). GET /usage sums these rows in every
// grouping. `sessions` is not metered here: it is recorded once, when a session is created, in the
// same transaction as the plan-quota check (modules/usage/quota.service.ts), so a session counts
// exactly once whether or not anyone joins it. stt_seconds, tts_characters and voice_minutes come
// with the voice pipeline and the call controller.
import { toDbTime, type Executor } from '../store/database.js';
import { newId as defaultNewId, type IdGenerator } from '../shared/ids.js';
import type { EngineEvent, EventStream } from './events.js';
import { sessionRecordingRepo } from './session-recording.repo.js';
import { WriteQueue } from './write-queue.js';

export interface UsageMeterOptions {
  db: Executor;
  workspaceId: string;
  projectId: string | null;
  newId?: IdGenerator;
  onError?: (err: unknown) => void;
}

export class UsageMeter {
  private readonly queue: WriteQueue;
  private readonly newId: IdGenerator;

  constructor(private readonly options: UsageMeterOptions) {
    this.queue = new WriteQueue(options.onError);
    this.newId = options.newId ?? defaultNewId;
  }

  attach(stream: EventStream): () => void {
    return stream.subscribe((e) => this.handle(e));
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  handle(event: EngineEvent): void {
    if (event.type === 'usage') {
      if (event.llm_input_tokens > 0) {
        this.record('llm_input_tokens', event.llm_input_tokens, event.provider, event.at);
      }
      if (event.llm_output_tokens > 0) {
        this.record('llm_output_tokens', event.llm_output_tokens, event.provider, event.at);
      }
    }
  }

  private record(metric: string, quantity: number, provider: string | null, at: number): void {
    const row = {
      id: this.newId(),
      workspace_id: this.options.workspaceId,
      project_id: this.options.projectId,
      metric,
      provider,
      quantity,
      occurred_at: toDbTime(at),
    };
    this.queue.push(async () => {
      await sessionRecordingRepo.insertUsage(this.options.db, row);
    });
  }
}
