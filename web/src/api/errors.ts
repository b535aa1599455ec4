// One error type for every failed API call, carrying what the pages need to explain it: the
// spec's envelope (message, errors by field), the status, the wait of a 429, and a network failure
// (no status at all), so a page can offer "Retry" instead of going blank.
import type { ApiErrorBody } from 'switchboard/client';

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    message: string,
    /** 422's `errors` (and 402's `quota`), keyed by field path. */
    readonly fieldErrors: Record<string, string[]> = {},
    /** 429's Retry-After, in seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }

  /** Errors keyed by a field that starts with `prefix.` (e.g. `dispatch_rules.0`), re-keyed without it. */
  fieldsUnder(prefix: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [key, list] of Object.entries(this.fieldErrors)) {
      if (key.startsWith(prefix + '.')) out[key.slice(prefix.length + 1)] = list;
    }
    return out;
  }
}

const SCOPE_IN_MESSAGE = /"([a-z:]+)" scope/;

/** A sentence a person can act on, for any ApiError. */
export function explain(error: ApiError): string {
  switch (error.status) {
    case 0:
      return 'The server could not be reached. Check that Switchboard is running, then retry.';
    case 403: {
      const scope = SCOPE_IN_MESSAGE.exec(error.message)?.[1];
      if (!scope) return error.message;
      return scope === 'read' || scope.endsWith(':read')
        ? `This key lacks the "${scope}" scope, which reading this needs. Sign in with a key that has it.`
        : `This key lacks the "${scope}" scope, so it can look but not change this. Sign in with a key that has it.`;
    }
    case 429:
      return error.retryAfterSeconds !== null
        ? `Too many requests for this workspace. Try again in ${error.retryAfterSeconds} s.`
        : 'Too many requests for this workspace. Try again shortly.';
    case 402: {
      const quota = error.fieldErrors.quota?.join(' ');
      return quota ? `${error.message} ${quota}` : error.message;
    }
    default:
      return error.message;
  }
}

export async function errorFromResponse(response: Response, body: unknown): Promise<ApiError> {
  const envelope = (body ?? {}) as Partial<ApiErrorBody>;
  const retry = response.headers.get('Retry-After');
  return new ApiError(
    response.status,
    typeof envelope.message === 'string' ? envelope.message : `The server answered ${response.status}.`,
    envelope.errors ?? {},
    retry !== null && /^\d+$/.test(retry) ? Number(retry) : null,
  );
}
