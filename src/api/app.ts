// Builds the HTTP application without listening, so tests drive it with app.inject() and the
// server entry point only calls listen(). Every route declares its schema: validation, types,
// serialization and the OpenAPI document all come from it.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Logger } from '../shared/logger.js';
import { UnavailableError } from '../shared/errors.js';
import { pingStore } from '../store/database.js';
import type { Services } from '../modules/services.js';
import type { ServiceParts, Wiring } from '../wiring/wiring.js';
import { answerRouterError, registerErrorHandling } from './plugins/errors.js';
import { registerTextCheck } from './plugins/text-check.js';
import { registerAuth } from './plugins/auth.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerMetrics } from './plugins/metrics.js';
import { registerTracing } from './plugins/tracing.js';
import type { Metrics } from '../ops/metrics.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { registerRoutes } from './routes/index.js';
import { requestIdFor } from './request-id.js';
import { realtimeRoutes } from './routes/realtime.routes.js';
import { registerWebsocketRoutes } from './websocket-scope.js';
import { speechStatus } from '../providers/speech-status.js';
import { defaultDashboardDir, registerDashboard } from '../web-serving/dashboard.js';
import { defaultVoicePagesDir, registerVoicePages } from '../web-serving/voice-pages.js';

/** Longest path parameter the router matches; Node's 16 KB header limit bounds URLs anyway. */
const MAX_PATH_PARAM_LENGTH = 16 * 1024;

export interface AppOptions {
  /**
   * The service's parts (wiring/wiring.ts): the app serves its services and runs the realtime
   * sockets' sessions on its session host. Whoever built the wiring closes it, after the app.
   */
  wiring: Wiring;
  rateLimiter: RateLimiter;
  /**
   * What only some roles or tests have: the SIP dialer (without one POST /calls ends calls
   * `sip_unavailable`), the live-event publisher that tells other nodes of force-ends and cancels
   * (without one, this process only), a DNS resolver for webhook URL checks.
   */
  parts?: ServiceParts;
  /** pino logger for request logs; omit for silence. */
  httpLogger?: Logger;
  /** The built dashboard to serve at / (web/dist by default); null serves none. */
  dashboardDir?: string | null;
  /** The node's metrics: served at GET /metrics, and every answer's duration recorded. */
  metrics?: Metrics;
  /** The built browser voice pages (/join, /widget.js; web-voice/dist by default). */
  voicePagesDir?: string;
}

export interface BuiltApp {
  app: FastifyInstance;
  services: Services;
}

export async function buildApp(options: AppOptions): Promise<BuiltApp> {
  const { wiring } = options;
  const { deps, sessionHost } = wiring;
  const app: FastifyInstance = Fastify({
    loggerInstance: options.httpLogger as FastifyBaseLogger | undefined,
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // A path id of any length reaches its route, so it is authenticated and answered 404 like
    // any other unknown id (the router's own limit, 100 characters, answered 414 before auth).
    // Node's header limit (16 KB) still bounds the whole URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: answerRouterError,
  }) as unknown as FastifyInstance;

  // Synchronous (callback) hook: no promise per response.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });

  await registerOpenApi(app, deps.config.publicBaseUrl);
  registerJsonBodies(app);
  registerValidators(app);
  registerErrorHandling(app);
  if (options.metrics) registerMetrics(app, options.metrics, deps.config.metricsToken);
  registerAuth(app, deps, options.rateLimiter);
  registerTextCheck(app);
  registerIdempotency(app, deps);
  // After the plugins that add route hooks: the request's span wraps them too.
  registerTracing(app);

  const services = wiring.services(options.parts);

  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await pingStore(deps.db);
      // Speech is reported beside the store; it never turns the status (the store's) to an error.
      return { status: 'ok', store: deps.dialect, speech: speechStatus(deps.config) };
    } catch (err) {
      reply.log.error({ err }, 'health check failed');
      throw new UnavailableError('The store does not answer.');
    }
  });

  await app.register(
    async (v1) => {
      await registerRoutes(v1, services, deps);
      // Frames up to 1 MiB reach the protocol, which refuses those past MAX_FRAME_BYTES with an
      // `error` frame; only larger ones close the socket (1009).
      await registerWebsocketRoutes(v1, 1024 * 1024, (scope) => realtimeRoutes(scope, sessionHost, deps));
    },
    { prefix: '/api/v1' },
  );

  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await registerVoicePages(app, {
    dir: options.voicePagesDir ?? defaultVoicePagesDir(),
    publicBaseUrl: deps.config.publicBaseUrl,
  });

  if (options.dashboardDir !== null) {
    await registerDashboard(app, {
      dir: options.dashboardDir ?? defaultDashboardDir(),
      publicBaseUrl: deps.config.publicBaseUrl,
    });
  }

  await app.ready();
  return { app, services };
}

/** The OpenAPI 3.1 document, built from every route's schema (GET /api/v1/openapi.json). */
async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '1.0.0',
        description: 'Voice workflow service: projects, agents, workflows, sessions, calls and telephony.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'pk_live_… API key' } },
      },
      security: [{ bearer: [] }],
    },
  });
}

function registerJsonBodies(app: FastifyInstance): void {
  // An empty body with Content-Type: application/json counts as "no body" (POST /publish takes
  // none); routes that need a body then answer 400. Anything else goes to fastify's safe parser.
  // JSON is the only body the API takes: without fastify's text/plain parser, a body of any other
  // type is refused as malformed (400) instead of reaching the schema as a string.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    jsonParser(req, body as string, done);
  });
}

function registerValidators(app: FastifyInstance): void {
  // Query strings and path params arrive as text and are coerced to the schema's types; JSON
  // bodies never are (42 stays a number, null stays null: metadata is echoed verbatim).
  const makeAjv = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({
      removeAdditional: false,
      useDefaults: true,
      allErrors: true,
      strict: false,
      coerceTypes,
    });
    addFormats.default(ajv);
    return ajv;
  };
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema),
  );
}
