// One byte range from an HTTP Range header (RFC 9110 14.1.2): `bytes=a-b`, `bytes=a-`, or the
// last n bytes `bytes=-n`. Several ranges, another unit or a malformed header mean "no range" (the
// whole resource, as the RFC allows a server to answer); a range wholly past the end is a 416.
import { RangeNotSatisfiableError } from '../../shared/errors.js';

export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw new RangeNotSatisfiableError(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) throw new RangeNotSatisfiableError(size);
  return { start, end };
}
