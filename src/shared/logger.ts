// Structured JSON logs (pino) on stderr, so `--json` command output on stdout stays clean.
// Secrets are redacted by path wherever they could appear.
import { pino, destination, type Logger } from 'pino';
import { activeTraceId } from './tracing.js';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'auth_password',
  '*.auth_password',
  'secret',
  '*.secret',
  'api_key',
  'join_token',
];

export function createLogger(level: string = 'info'): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'switchboard' },
      // With tracing on, a line written inside a span names its trace, so logs and traces join.
      mixin: () => {
        const traceId = activeTraceId();
        return traceId ? { trace_id: traceId } : {};
      },
    },
    destination({ dest: 2, sync: false }),
  );
}

/** A logger that drops everything: the default in tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
