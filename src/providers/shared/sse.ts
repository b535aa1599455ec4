// Server-Sent Events parsing (the WHATWG event-stream format) for the streaming HTTP adapters.
// Bytes arrive split anywhere (mid-line, mid-UTF-8 sequence, between CR and LF), so the parser
// keeps partial lines and the decoder keeps partial characters between chunks.

export interface SseEvent {
  /** The `event:` field; `message` when the server sent none. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

export class SseParser {
  private buf = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private started = false;

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.buf += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const lf = this.buf.indexOf('\n', start);
      const cr = this.buf.indexOf('\r', start);
      if (lf < 0 && cr < 0) break;
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        // A CR at the very end may be the first half of CRLF: wait for the next chunk.
        if (cr === this.buf.length - 1) break;
        end = cr;
        next = this.buf[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      this.line(this.buf.slice(start, end), out);
      start = next;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  /**
   * The stream ended. The standard drops an event not closed by a blank line; we deliver it,
   * because some servers end their last event with a single newline and the data is whole.
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buf.length > 0) {
      const rest = this.buf.replace(/\r$/, '');
      this.buf = '';
      this.line(rest, out);
    }
    this.dispatch(out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // ":" starts a comment (keep-alives, router notes)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      default:
        break; // "retry" and unknown fields do not concern a one-shot request
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length > 0) {
      const ev: SseEvent = { event: this.event || 'message', data: this.data.join('\n') };
      if (this.id !== undefined) ev.id = this.id;
      out.push(ev);
    }
    this.data = [];
    this.event = '';
  }
}

/** Turns a byte stream into SSE events. */
export async function* readSse(
  body: AsyncIterable<Uint8Array | string>,
  onChunk?: () => void,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    onChunk?.();
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (const ev of parser.push(text)) yield ev;
  }
  const tail = decoder.decode();
  for (const ev of parser.push(tail)) yield ev;
  for (const ev of parser.end()) yield ev;
}
