// Maps every failure to the spec's envelope ({message, errors?}) and status. Domain errors come
// from the one catalog (src/shared/errors.ts); framework errors (bad JSON, body too large, schema
// validation) are translated here, nowhere else.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  BadRequestError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
  type FieldErrors,
} from '../../shared/errors.js';

interface AjvError {
  instancePath?: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldOf(e: AjvError): string {
  const base = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const extra =
    e.keyword === 'required'
      ? String(e.params?.missingProperty ?? '')
      : e.keyword === 'additionalProperties'
        ? String(e.params?.additionalProperty ?? '')
        : '';
  return [base, extra].filter(Boolean).join('.') || 'body';
}

function messageOf(e: AjvError): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of: ${((e.params?.allowedValues as unknown[]) ?? []).join(', ')}`;
    case 'maxProperties':
      return `must have at most ${String(e.params?.limit)} keys`;
    default:
      return e.message ?? 'is invalid';
  }
}

const isNullBranch = (e: AjvError): boolean => e.keyword === 'type' && e.params?.type === 'null';

/**
 * A value that fails a nullable schema (anyOf [T, null]) fails both branches, and the null branch
 * says "must be null". That is folded into the other branch's type error at the same place ("must
 * be string or null"), or dropped when the value failed deeper inside the other branch: a body
 * `{"version": "1"}` is wrong in `version`, not a body that should have been null.
 */
function withoutNullBranches(list: AjvError[]): Array<{ e: AjvError; orNull: boolean }> {
  const kept: Array<{ e: AjvError; orNull: boolean }> = [];
  for (const e of list) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    if (isNullBranch(e)) {
      const at = e.instancePath ?? '';
      const explained = list.some(
        (o) =>
          o !== e &&
          !isNullBranch(o) &&
          o.keyword !== 'anyOf' &&
          o.keyword !== 'oneOf' &&
          ((o.instancePath ?? '') === at || (o.instancePath ?? '').startsWith(`${at}/`)),
      );
      if (explained) continue;
    }
    const orNull =
      e.keyword === 'type' &&
      !isNullBranch(e) &&
      list.some((o) => isNullBranch(o) && (o.instancePath ?? '') === (e.instancePath ?? ''));
    kept.push({ e, orNull });
  }
  return kept;
}

/** Fastify schema errors as 422 keyed by field (anyOf noise folded into one message per field). */
export function validationErrors(list: AjvError[], context: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const { e, orNull } of withoutNullBranches(list)) {
    const field = context === 'body' || context === 'querystring' ? fieldOf(e) : `${context}.${fieldOf(e)}`;
    const msg = orNull ? `${messageOf(e)} or null` : messageOf(e);
    const arr = (errors[field] ??= []);
    if (!arr.includes(msg)) arr.push(msg);
  }
  if (Object.keys(errors).length === 0 && list.length) errors[fieldOf(list[0]!)] = ['is invalid'];
  return errors;
}

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  errors?: FieldErrors,
): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send(errors ? { message, errors } : { message });
}

/** Every failure as a catalog error: domain errors as they are, framework errors translated. */
function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const ctx = error.validationContext ?? 'body';
    if (ctx === 'body' && (request.body === undefined || request.body === null)) {
      return new BadRequestError('A JSON request body is required.');
    }
    if (ctx === 'params') return new NotFoundError();
    const errors = validationErrors(error.validation as AjvError[], ctx);
    const first = Object.keys(errors)[0]!;
    return new ValidationError(errors, `The ${first} field ${errors[first]![0]}.`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadRequestError('A JSON request body is required.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new BadRequestError('The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // The spec's table has no 415: a body that is not JSON is a malformed request.
      return new BadRequestError('Send the request body as JSON, with Content-Type: application/json.');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new BadRequestError('The request body is not valid JSON.');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode, error.message);
  }
  return new InternalError();
}

/**
 * The router's own refusals, before any route matched: a path that does not decode (a bad `%XX`
 * escape, or bytes that are not UTF-8) and a path parameter past the router's limit. Neither can
 * name a resource, so both are 404 in the spec's envelope, as an unknown id is; without this,
 * fastify answers 400 and 414 in a body of its own shape.
 */
export function answerRouterError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'Not found: the path is not valid percent-encoded UTF-8.'
      : 'Not found.';
  sendError(reply, 404, message);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request);
    if (appError.headers) reply.headers(appError.headers);
    if (appError.status >= 500) request.log.error({ err: error }, appError.message);
    return sendError(reply, appError.status, appError.message, appError.errors);
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'Route not found.'));
}
