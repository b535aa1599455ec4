// A real local HTTP receiver for webhook tests and benchmarks: records every request (headers and
// raw body) and answers with whatever the test scripts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: Received, res: http.ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: Responder;
  /** Requests so far (also counted when not recorded). */
  readonly count: number;
  /** Resolves when the n-th request (1-based, counted since the last reset) has arrived. */
  waitFor(n: number): Promise<void>;
  /** Forgets what was received and restores the default 204 answer. */
  reset(): void;
  close(): Promise<void>;
}

const defaultRespond: Responder = (_req, res) => res.writeHead(204).end();

export async function startReceiver(respond?: Responder, record = true): Promise<Receiver> {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let count = 0;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: respond ?? defaultRespond,
    get count() {
      return count;
    },
    reset() {
      count = 0;
      receiver.received.length = 0;
      receiver.respond = respond ?? defaultRespond;
    },
    waitFor(n) {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const item = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      if (record) receiver.received.push(item);
      count++;
      for (const w of waiters.filter((w) => w.n <= count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      receiver.respond(item, res);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
