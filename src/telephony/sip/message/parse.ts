// Parses one SIP message from bytes (RFC 3261 section 7): start line, header fields with folding
// and compact names, body framed by Content-Length. Throws only SipParseError.
import { assemble } from './assemble.js';
import type { StartLine } from './assemble.js';
import { SyntaxFault } from './errors.js';
import { canonicalName } from './header-names.js';
import type { SipLimits } from './limits.js';
import { withLimits } from './limits.js';
import { salvage, toParseError } from './salvage.js';
import { isToken, trimWs } from './scanner.js';
import type { SipHeader, SipMessage } from './types.js';
import { parseUri } from './uri.js';

export interface ParseOptions {
  readonly limits?: Partial<SipLimits>;
  /**
   * Stream transports must carry Content-Length (RFC 3261 18.3). On datagrams it may be missing,
   * and then the body runs to the end of the datagram; octets past Content-Length are ignored.
   */
  readonly requireContentLength?: boolean;
}

const EMPTY = new Uint8Array(0);
const VERSION = /^SIP\/(\d+)\.(\d+)$/i;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

function checkVersion(v: string): void {
  const m = VERSION.exec(v);
  if (!m) throw new SyntaxFault('bad SIP version');
  if (Number(m[1]) !== 2 || Number(m[2]) !== 0) {
    throw new SyntaxFault(`SIP version ${v} not supported`, 505, 'Version Not Supported');
  }
}

export function parseStartLine(line: string): StartLine {
  if (/^SIP\//i.test(line)) {
    const sp1 = line.indexOf(' ');
    if (sp1 < 0) throw new SyntaxFault('status line without status code');
    checkVersion(line.slice(0, sp1));
    const sp2 = line.indexOf(' ', sp1 + 1);
    const code = sp2 < 0 ? line.slice(sp1 + 1) : line.slice(sp1 + 1, sp2);
    if (!/^[1-6]\d\d$/.test(code)) throw new SyntaxFault('bad status code');
    const reason = sp2 < 0 ? '' : line.slice(sp2 + 1);
    if (CONTROL.test(reason)) throw new SyntaxFault('control character in reason phrase');
    return { kind: 'response', status: Number(code), reason };
  }
  // Exactly one SP between the three elements (RFC 4475 lwsstart, trws and lwsruri are errors).
  const parts = line.split(' ');
  if (parts.length !== 3) throw new SyntaxFault('request line is not "Method SP Request-URI SP SIP-Version"');
  const [method, target, version] = parts;
  if (!isToken(method)) throw new SyntaxFault('bad method');
  checkVersion(version);
  const scheme = SCHEME.exec(target)?.[1].toLowerCase();
  if (scheme === undefined) throw new SyntaxFault('bad Request-URI');
  if (scheme !== 'sip' && scheme !== 'sips' && scheme !== 'tel') {
    throw new SyntaxFault(`Request-URI scheme ${scheme} not supported`, 416, 'Unsupported URI Scheme');
  }
  return { kind: 'request', method, uri: parseUri(target, 'Request-URI') };
}

/** Header lines to fields: continuation lines join the previous field with one SP. */
export function unfoldHeaders(lines: readonly string[], limits: SipLimits): SipHeader[] {
  const headers: SipHeader[] = [];
  let name: string | undefined;
  let value = '';
  const flush = (): void => {
    if (name === undefined) return;
    const v = trimWs(value);
    if (v.length > limits.maxLineLength) throw new SyntaxFault(`${name} longer than the line limit`);
    headers.push({ name, value: v });
  };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const c0 = line.charCodeAt(0);
    if (c0 === 32 || c0 === 9) {
      if (name === undefined) throw new SyntaxFault('continuation line before any header');
      value = trimWs(value) + ' ' + trimWs(line);
      if (value.length > limits.maxLineLength) throw new SyntaxFault('header longer than the line limit');
      continue;
    }
    flush();
    if (headers.length >= limits.maxHeaders) throw new SyntaxFault('too many header fields');
    const colon = line.indexOf(':');
    if (colon < 0) throw new SyntaxFault('header line without ":"');
    const rawName = trimWs(line.slice(0, colon));
    if (!isToken(rawName)) throw new SyntaxFault('bad header name');
    name = canonicalName(rawName);
    value = line.slice(colon + 1);
  }
  flush();
  return headers;
}

function indexOfHeaderEnd(buf: Buffer, from: number): number {
  return buf.indexOf('\r\n\r\n', from, 'latin1');
}

function toBuffer(input: Uint8Array | string): Buffer {
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  return Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

function copyBytes(buf: Buffer, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(buf.subarray(start, end));
  return out;
}

export function parseMessage(input: Uint8Array | string, options: ParseOptions = {}): SipMessage {
  const buf = toBuffer(input);
  const limits = withLimits(options.limits);
  let start = 0;
  // Leading CRLFs are keep-alives or stream noise (RFC 3261 7.5); they are not part of the message.
  while (start + 1 < buf.length && buf[start] === 13 && buf[start + 1] === 10) start += 2;
  let lines: string[] = [];
  try {
    if (buf.length - start > limits.maxMessageBytes) {
      lines = buf.toString('utf8', start, start + Math.min(16384, limits.maxMessageBytes)).split('\r\n');
      lines.pop();
      throw new SyntaxFault('message exceeds the size limit', 513, 'Message Too Large');
    }
    let headEnd = indexOfHeaderEnd(buf, start);
    let bodyStart = headEnd + 4;
    if (headEnd < 0) {
      // A datagram whose last header line ends in CRLF but lacks the empty line is read as body-less.
      if (buf.length - start >= 2 && buf[buf.length - 2] === 13 && buf[buf.length - 1] === 10) {
        headEnd = buf.length - 2;
        bodyStart = buf.length;
      } else {
        lines = buf.toString('utf8', start).split('\r\n');
        throw new SyntaxFault('header section does not end');
      }
    }
    lines = buf.toString('utf8', start, headEnd).split('\r\n');
    for (const line of lines) {
      if (line.includes('\r') || line.includes('\n'))
        throw new SyntaxFault('bare CR or LF in header section');
    }
    if (lines[0].length > limits.maxLineLength)
      throw new SyntaxFault('start line longer than the line limit');
    const startLine = parseStartLine(lines[0]);
    const headers = unfoldHeaders(lines, limits);
    const msg = assemble(startLine, headers, EMPTY, limits);
    const available = buf.length - bodyStart;
    let bodyEnd = buf.length;
    if (msg.contentLength === undefined) {
      if (options.requireContentLength) throw new SyntaxFault('missing Content-Length');
    } else {
      if (msg.contentLength > available) throw new SyntaxFault('body shorter than Content-Length');
      bodyEnd = bodyStart + msg.contentLength;
    }
    return bodyEnd > bodyStart ? { ...msg, body: copyBytes(buf, bodyStart, bodyEnd) } : msg;
  } catch (e) {
    if (e instanceof SyntaxFault) throw toParseError(e, salvage(lines, limits));
    throw e;
  }
}
