// Builds every service once per process from the shared dependencies.
import { AgentsService } from './agents/agents.service.js';
import { ApiKeysService } from './api-keys/api-keys.service.js';
import { CallsService } from './calls/calls.service.js';
import { UnavailableDialer, type Dialer } from './calls/dialer.js';
import type { ServiceDeps } from './context.js';
import { ConversationsService } from './conversations/conversations.service.js';
import { PhoneNumbersService } from './phone-numbers/phone-numbers.service.js';
import { ProjectsService } from './projects/projects.service.js';
import { SipTrunksService } from './sip-trunks/sip-trunks.service.js';
import { UsageService } from './usage/usage.service.js';
import { RecordingsService } from './recordings/recordings.service.js';
import type { RecordingStorage } from './recordings/recording-storage.js';
import { SessionsService, type LiveSessionControl } from './sessions/sessions.service.js';
import { WorkflowsService } from './workflows/workflows.service.js';
import { WebhookEndpointsService } from './webhook-endpoints/webhook-endpoints.service.js';
import type { LivePublisher } from '../events/live-bus.js';
import type { Resolver } from '../events/ssrf-guard.js';
import { tracedServices } from './traced-services.js';

export interface Services {
  projects: ProjectsService;
  apiKeys: ApiKeysService;
  agents: AgentsService;
  workflows: WorkflowsService;
  sessions: SessionsService;
  calls: CallsService;
  recordings: RecordingsService;
  conversations: ConversationsService;
  usage: UsageService;
  sipTrunks: SipTrunksService;
  phoneNumbers: PhoneNumbersService;
  webhookEndpoints: WebhookEndpointsService;
}

/** Parts a test or a role may replace. */
export interface ServiceOverrides {
  /** Places outbound calls; without one, calls end failed / sip_unavailable. */
  dialer?: Dialer;
  /** The engine's registry of running sessions, so DELETE /sessions aborts them. */
  liveSessions?: LiveSessionControl;
  /** DNS for webhook URL checks (tests answer names without a network). */
  webhookResolver?: Resolver;
  /**
   * Tells the other nodes that a session was force-ended, a call cancelled, a key revoked or a
   * trunk or number changed here (live-bus.ts); without one, only this process hears of it.
   */
  liveEvents?: LivePublisher;
  /** Where call recordings are kept; by default files under the data directory's recordings/. */
  recordingStorage?: RecordingStorage;
}

export function createServices(deps: ServiceDeps, overrides: ServiceOverrides = {}): Services {
  return tracedServices<Services>({
    projects: new ProjectsService(deps),
    apiKeys: new ApiKeysService(deps, overrides.liveEvents),
    conversations: new ConversationsService(deps),
    usage: new UsageService(deps),
    sipTrunks: new SipTrunksService(deps, overrides.liveEvents),
    phoneNumbers: new PhoneNumbersService(deps, overrides.liveEvents),
    agents: new AgentsService(deps),
    workflows: new WorkflowsService(deps),
    sessions: new SessionsService(deps, overrides.liveSessions, overrides.liveEvents),
    webhookEndpoints: new WebhookEndpointsService(deps, overrides.webhookResolver),
    recordings: new RecordingsService(deps, overrides.recordingStorage),
    calls: new CallsService(
      deps,
      overrides.dialer ?? new UnavailableDialer(deps, deps.logger),
      overrides.liveEvents,
    ),
  });
}
