// A fake API for component tests: each call to fetch is answered by the first handler whose method
// and path match, and recorded, so a test can say what was sent and decide what comes back.
import { vi } from 'vitest';

export interface Sent {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: Headers;
}

type Handler = { method: string; path: string | RegExp; reply: (sent: Sent) => Response | Promise<Response> };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

export function page<T>(data: T[]) {
  return {
    data,
    links: { first: '/?page=1', last: '/?page=1', prev: null, next: null },
    meta: {
      current_page: 1,
      from: data.length ? 1 : null,
      last_page: 1,
      path: '/',
      per_page: 25,
      to: data.length || null,
      total: data.length,
    },
  };
}

export function fakeApi(handlers: Handler[]) {
  const sent: Sent[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url);
    const text = request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text();
    const s: Sent = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      body: text ? JSON.parse(text) : undefined,
      headers: request.headers,
    };
    sent.push(s);
    const h = handlers.find(
      (x) => x.method === s.method && (typeof x.path === 'string' ? x.path === s.path : x.path.test(s.path)),
    );
    if (!h) return json(404, { message: `no fake for ${s.method} ${s.path}` });
    return h.reply(s);
  });
  vi.stubGlobal('fetch', fetchMock);
  return { sent, fetchMock };
}
