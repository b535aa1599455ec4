// Store queries as spans (kind client) under whatever span is active: the request's service call,
// a call's admission step. Kysely's queries report themselves through its `log` hook once they
// finish; the hand-written hot-path queries (prepared.ts) are timed here. The SQL text goes in the
// span; the bound values never do (they hold callers' data).
import type { LogEvent } from 'kysely';
import { recordSpan, tracingEnabled } from '../shared/tracing.js';

export type DbSystem = 'sqlite' | 'postgresql';

function attributes(system: DbSystem, text: string) {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  return { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': text };
}

/** Kysely's `log` option when tracing is on: each finished query becomes a span. */
export function kyselyQuerySpans(system: DbSystem): ((event: LogEvent) => void) | undefined {
  if (!tracingEnabled()) return undefined;
  return (event) => {
    const ms = event.queryDurationMillis;
    const attrs = attributes(system, event.query.sql);
    recordSpan(
      `db ${attrs['db.operation.name']}`,
      Date.now() - ms,
      ms,
      attrs,
      event.level === 'error' ? event.error : undefined,
    );
  };
}

/** Times a hot-path query as a span; with tracing off it only runs it. */
export function timedQuery<T>(system: DbSystem, text: string, run: () => T): T {
  if (!tracingEnabled()) return run();
  const startedAt = Date.now();
  const t0 = performance.now();
  const record = (err?: unknown) => {
    const attrs = attributes(system, text);
    recordSpan(`db ${attrs['db.operation.name']}`, startedAt, performance.now() - t0, attrs, err);
  };
  let result: T;
  try {
    result = run();
  } catch (err) {
    record(err);
    throw err;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        record();
        return value;
      },
      (err: unknown) => {
        record(err);
        throw err;
      },
    ) as T;
  }
  record();
  return result;
}
