// A fake live-transcription vendor (the stt_vendor_1 protocol) on 127.0.0.1: a WebSocket server
// at /v1/listen that records the query, headers, audio bytes and control messages of each
// connection, and lets the test send Results / SpeechStarted / UtteranceEnd frames back. It
// answers CloseStream like the vendor: any scripted last results, then a normal close.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeSttConnection {
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  /** Binary frames received, concatenated. */
  audio(): Buffer;
  /** Text (control) messages received, parsed. */
  readonly controls: { type: string }[];
  /** Sends any JSON message down. */
  send(message: unknown): void;
  /** Sends a Results message. */
  result(
    text: string,
    flags?: {
      isFinal?: boolean;
      speechFinal?: boolean;
      start?: number;
      duration?: number;
      confidence?: number;
    },
  ): void;
  /** Resolves once at least `bytes` of audio have arrived. */
  waitForAudio(bytes: number): Promise<void>;
  /** Resolves when a control message of this type arrives. */
  waitForControl(type: string): Promise<void>;
  /** Closes from the server side (e.g. 1011 on a vendor error). */
  close(code: number, reason?: string): void;
  /** Messages to send when the client sends CloseStream, before the normal close. */
  onCloseStream: unknown[];
}

export interface FakeSttServer {
  readonly baseUrl: string;
  /** Refuse the next handshake with this HTTP status and JSON body. */
  refuseNext(status: number, body: unknown): void;
  /** Never answer the next handshake; resolves when its request has arrived. */
  hangNext(): Promise<void>;
  nextConnection(): Promise<FakeSttConnection>;
  close(): Promise<void>;
}

export async function startFakeSttServer(): Promise<FakeSttServer> {
  const wss = new WebSocketServer({ noServer: true });
  const pending: FakeSttConnection[] = [];
  let waiters: ((c: FakeSttConnection) => void)[] = [];
  let refusal: { status: number; body: unknown } | undefined;
  let hang: (() => void) | undefined;
  const sockets = new Set<Duplex>();

  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket, head) => {
    if (hang) {
      const arrived = hang;
      hang = undefined;
      arrived();
      return;
    }
    if (refusal) {
      const { status, body } = refusal;
      refusal = undefined;
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
  });

  function accept(ws: WebSocket, req: IncomingMessage): void {
    const chunks: Buffer[] = [];
    let audioBytes = 0;
    let audioWaiters: { bytes: number; resolve: () => void }[] = [];
    let controlWaiters: { type: string; resolve: () => void }[] = [];
    const conn: FakeSttConnection = {
      url: new URL(req.url ?? '/', 'http://127.0.0.1'),
      headers: req.headers,
      audio: () => Buffer.concat(chunks),
      controls: [],
      send: (m) => ws.send(JSON.stringify(m)),
      result(text, f = {}) {
        this.send({
          type: 'Results',
          channel_index: [0, 1],
          start: f.start ?? 0,
          duration: f.duration ?? 1,
          is_final: f.isFinal ?? false,
          speech_final: f.speechFinal ?? false,
          channel: { alternatives: [{ transcript: text, confidence: f.confidence ?? 0.9, words: [] }] },
        });
      },
      waitForAudio(bytes) {
        if (audioBytes >= bytes) return Promise.resolve();
        return new Promise((resolve) => audioWaiters.push({ bytes, resolve }));
      },
      waitForControl(type) {
        if (this.controls.some((c) => c.type === type)) return Promise.resolve();
        return new Promise((resolve) => controlWaiters.push({ type, resolve }));
      },
      close: (code, reason) => ws.close(code, reason),
      onCloseStream: [],
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        const b = data as Buffer;
        chunks.push(b);
        audioBytes += b.length;
        audioWaiters = audioWaiters.filter((w) => (audioBytes >= w.bytes ? (w.resolve(), false) : true));
        return;
      }
      const msg = JSON.parse(String(data)) as { type: string };
      conn.controls.push(msg);
      controlWaiters = controlWaiters.filter((w) => (w.type === msg.type ? (w.resolve(), false) : true));
      if (msg.type === 'CloseStream') {
        for (const m of conn.onCloseStream) conn.send(m);
        conn.send({ type: 'Metadata', request_id: 'fake', duration: audioBytes / 32000 });
        ws.close(1000);
      }
    });
    const waiter = waiters.shift();
    if (waiter) waiter(conn);
    else pending.push(conn);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `ws://127.0.0.1:${port}`,
    refuseNext(status, body) {
      refusal = { status, body };
    },
    hangNext() {
      return new Promise<void>((resolve) => (hang = resolve));
    },
    nextConnection() {
      const c = pending.shift();
      if (c) return Promise.resolve(c);
      return new Promise((resolve) => waiters.push(resolve));
    },
    async close() {
      waiters = [];
      for (const ws of wss.clients) ws.terminate();
      for (const s of sockets) s.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
