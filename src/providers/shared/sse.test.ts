import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser, readSse, type SseEvent } from './sse.js';

function parseAll(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

describe('SseParser', () => {
  it('reads data events, named events, ids and skips comments', () => {
    const events = parseAll([': keep-alive\n\ndata: {"a":1}\n\nevent: message_stop\nid: 7\ndata: {}\n\n']);
    expect(events).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'message_stop', data: '{}', id: '7' },
    ]);
  });

  it('joins multi-line data with newlines and keeps a value without the single leading space', () => {
    expect(parseAll(['data: one\ndata:two\ndata:  three\n\n'])).toEqual([
      { event: 'message', data: 'one\ntwo\n three' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, even with CR and LF in different chunks', () => {
    expect(parseAll(['data: a\r', '\n\r', '\ndata: b\r\rdata: c\n\n'])).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
  });

  it('ignores events without data and strips a leading byte order mark', () => {
    expect(parseAll(['\uFEFFevent: ping\n\ndata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('delivers a last event that was not closed by a blank line', () => {
    expect(parseAll(['data: [DONE]\n'])).toEqual([{ event: 'message', data: '[DONE]' }]);
  });

  it('gives the same events however the text is cut', () => {
    const stream =
      'event: a\r\ndata: {"x":"é"}\r\n\r\n: c\ndata: 1\ndata: 2\n\nevent: b\rdata: z\r\rdata: [DONE]\n\n';
    const whole = parseAll([stream]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: stream.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: string[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(stream.slice(prev, p));
          prev = p;
        }
        chunks.push(stream.slice(prev));
        expect(parseAll(chunks)).toEqual(whole);
      }),
    );
  });
});

describe('readSse', () => {
  it('reassembles UTF-8 characters split between byte chunks', async () => {
    const bytes = Buffer.from('data: héllo wörld\n\n', 'utf8');
    async function* body() {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    }
    const out: SseEvent[] = [];
    for await (const ev of readSse(body())) out.push(ev);
    expect(out).toEqual([{ event: 'message', data: 'héllo wörld' }]);
  });
});
