// The one catalog of domain errors. Services throw these; the API's error plugin maps each to the
// spec's status and envelope ({message, errors?}). Nothing else decides an HTTP status.

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request itself is malformed (bad JSON, missing body). */
export class BadRequestError extends AppError {
  constructor(message = 'The request is malformed.') {
    super(400, message);
  }
}

/** 416: a Range header that asks for bytes past the end of the resource. */
export class RangeNotSatisfiableError extends AppError {
  constructor(size: number) {
    super(416, 'The requested range is not satisfiable.', undefined, { 'content-range': `bytes */${size}` });
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Unauthenticated.') {
    super(401, message);
  }
}

export class QuotaExceededError extends AppError {
  constructor(message: string) {
    super(402, 'The plan quota is exhausted.', { quota: [message] });
  }
}

export class ForbiddenError extends AppError {
  constructor(scope: string) {
    super(403, `This action needs an API key with the "${scope}" scope.`);
  }
}

/** 404: unknown id, or an id of another workspace (never revealed as 403). */
export class NotFoundError extends AppError {
  constructor(resource = 'Resource') {
    super(404, `${resource} not found.`);
  }
}

/** 409: a dependency blocks the action; the message names it. */
export class ConflictError extends AppError {
  constructor(message: string, errors?: FieldErrors) {
    super(409, message, errors);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'The request body is larger than 1 MiB.') {
    super(413, message);
  }
}

/** 422: validation failed; errors keyed by request field. */
export class ValidationError extends AppError {
  constructor(errors: FieldErrors, message?: string) {
    super(422, message ?? summarize(errors), errors);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Too many requests.', undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class UnavailableError extends AppError {
  constructor(message = 'The service is temporarily unavailable.') {
    super(503, message);
  }
}

/** 500: an unexpected failure; the details go to the log, never to the client. */
export class InternalError extends AppError {
  constructor() {
    super(500, 'Internal server error.');
  }
}

/** Collects field errors while validating, so one response lists every problem at once. */
export class FieldErrorBag {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.errors);
  }
}

function summarize(errors: FieldErrors): string {
  const fields = Object.keys(errors);
  if (fields.length === 0) return 'The given data was invalid.';
  const first = errors[fields[0]!]![0] ?? 'is invalid';
  const more =
    fields.length > 1 ? ` (and ${fields.length - 1} more error${fields.length > 2 ? 's' : ''})` : '';
  return `${fields[0]}: ${first}${more}`;
}
