// The dashboard's one way to the API: the typed client (switchboard/client) on this origin, with
// the signed-in key. `call()` turns openapi-fetch's {data, error, response} into data or an ApiError,
// and tells the app when the key stopped working (401), so it returns to sign-in.
import { createSwitchboardClient } from 'switchboard/client';
import { readKey } from '../auth/session-key';
import { ApiError, errorFromResponse } from './errors';

export const api = createSwitchboardClient({
  baseUrl: window.location.origin,
  apiKey: readKey,
  // Looked up per request (not captured once), so component tests can stand in for the network.
  fetch: (request) => globalThis.fetch(request),
});

/** Fired on window when the API answers 401: the key is missing, malformed or revoked. */
export const UNAUTHORIZED_EVENT = 'switchboard:unauthorized';

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (err) {
    // fetch rejects only when no answer came (server down, network lost, request aborted).
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The server could not be reached.');
  }
  if (result.response.ok) return result.data as T;
  const error = await errorFromResponse(result.response, result.error);
  if (error.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
  throw error;
}

/** A list link (`links.next` and the rest) as the query object the typed client takes. */
export function queryOfLink(link: string): Record<string, string> {
  return Object.fromEntries(new URL(link, window.location.origin).searchParams);
}
