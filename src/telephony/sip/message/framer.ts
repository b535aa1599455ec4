// Cuts a byte stream (TCP, TLS) into whole SIP messages by Content-Length (RFC 3261 18.3), and
// reports RFC 5626 double-CRLF keep-alives. A framing error is fatal for the connection: after it
// the stream position is unknown, so the caller answers if it can and closes.
import { SyntaxFault } from './errors.js';
import type { SipParseError } from './errors.js';
import type { SipLimits } from './limits.js';
import { withLimits } from './limits.js';
import { salvage, toParseError } from './salvage.js';

export type Frame = { readonly kind: 'message'; readonly bytes: Buffer } | { readonly kind: 'keepalive' };

const EMPTY = Buffer.alloc(0);
const CL_LINE = /^(?:content-length|l)[ \t]*:[ \t]*(.*)$/i;

export class StreamFramer {
  private buf: Buffer = EMPTY;
  private broken = false;
  private readonly limits: SipLimits;

  constructor(limits?: Partial<SipLimits>) {
    this.limits = withLimits(limits);
  }

  /** Bytes waiting for the rest of their message. */
  get buffered(): number {
    return this.buf.length;
  }

  /** Adds a chunk and returns every frame it completes; throws SipParseError on a framing error. */
  push(chunk: Uint8Array): Frame[] {
    if (this.broken) return [];
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.next();
      if (frame === undefined) return frames;
      frames.push(frame);
    }
  }

  private fail(fault: SyntaxFault, headerText: string): SipParseError {
    this.broken = true;
    this.buf = EMPTY;
    return toParseError(fault, salvage(headerText.split('\r\n'), this.limits));
  }

  private next(): Frame | undefined {
    const b = this.buf;
    if (b.length === 0) return undefined;
    if (b[0] === 13) {
      if (b.length < 2) return undefined;
      if (b[1] !== 10) throw this.fail(new SyntaxFault('bare CR between messages'), '');
      if (b.length >= 4 && b[2] === 13 && b[3] === 10) {
        this.buf = b.subarray(4);
        return { kind: 'keepalive' };
      }
      if (b.length < 4 && (b.length === 2 || b[2] === 13)) return undefined;
      this.buf = b.subarray(2);
      return this.next();
    }
    const headEnd = b.indexOf('\r\n\r\n', 0, 'latin1');
    if (headEnd < 0) {
      if (b.length > this.limits.maxMessageBytes) {
        throw this.fail(
          new SyntaxFault('header section too large', 513, 'Message Too Large'),
          b.toString('utf8', 0, 16384),
        );
      }
      return undefined;
    }
    const head = b.toString('utf8', 0, headEnd);
    const lines = head.replace(/\r\n[ \t]+/g, ' ').split('\r\n');
    let length: number | undefined;
    for (const line of lines.slice(1)) {
      const m = CL_LINE.exec(line);
      if (!m) continue;
      const value = m[1].trim();
      if (length !== undefined) throw this.fail(new SyntaxFault('more than one Content-Length'), head);
      if (!/^\d{1,10}$/.test(value)) throw this.fail(new SyntaxFault('bad Content-Length'), head);
      length = Number(value);
    }
    if (length === undefined) throw this.fail(new SyntaxFault('missing Content-Length on a stream'), head);
    const total = headEnd + 4 + length;
    if (total > this.limits.maxMessageBytes) {
      throw this.fail(new SyntaxFault('message exceeds the size limit', 513, 'Message Too Large'), head);
    }
    if (b.length < total) return undefined;
    const bytes = Buffer.from(b.subarray(0, total));
    this.buf = b.subarray(total);
    return { kind: 'message', bytes };
  }
}
