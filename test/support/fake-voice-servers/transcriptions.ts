// A fake OpenAI-compatible transcription server (the protocol local Whisper servers speak):
// POST /v1/audio/transcriptions with multipart/form-data. It parses the form, keeps every request
// (headers, fields, the uploaded file) and answers with what the test scripts: a text, or a status
// with an error body, or nothing at all (a hang).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TranscriptionRequest {
  path: string;
  headers: IncomingMessage['headers'];
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer } | null;
}

export type TranscriptionAnswer = { text: string } | { status: number; body: string } | 'hang';

export interface FakeTranscriptionServer {
  baseUrl: string;
  requests: TranscriptionRequest[];
  /** How each request is answered (default: `{ text: '' }`). */
  answer: (request: TranscriptionRequest) => TranscriptionAnswer;
  close(): Promise<void>;
}

export async function startFakeTranscriptionServer(): Promise<FakeTranscriptionServer> {
  const hung = new Set<() => void>();
  const fake: FakeTranscriptionServer = {
    baseUrl: '',
    requests: [],
    answer: () => ({ text: '' }),
    close: async () => {
      for (const end of hung) end();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const form = await new Response(body, {
          headers: { 'content-type': req.headers['content-type'] ?? '' },
        })
          .formData()
          .catch(() => null);
        const fields: Record<string, string> = {};
        let file: TranscriptionRequest['file'] = null;
        for (const [name, value] of form?.entries() ?? []) {
          if (typeof value === 'string') fields[name] = value;
          else file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
        }
        const request: TranscriptionRequest = { path: req.url ?? '', headers: req.headers, fields, file };
        fake.requests.push(request);
        const answer = fake.answer(request);
        if (answer === 'hang') {
          hung.add(() => res.destroy());
          return;
        }
        if ('text' in answer) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ text: answer.text }));
        } else {
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
