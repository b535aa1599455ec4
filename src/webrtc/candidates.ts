// Our ICE candidates as the browser should see them. Behind a 1:1 NAT (a cloud VM) the host
// candidate carries the private address the socket is bound to; WEBRTC_PUBLIC_IP adds a copy of
// each host candidate with the public address and the same port, ranked just below the original,
// so a browser on the same network still takes the direct path and one outside takes the public
// one. Pure string work on the answer SDP.

/** One `a=candidate:` line's parts that we read or rewrite (RFC 8839 section 5.1). */
interface CandidateLine {
  foundation: string;
  component: string;
  transport: string;
  priority: number;
  address: string;
  port: string;
  rest: string;
}

const CANDIDATE = /^a=candidate:(\S+) (\d+) (\S+) (\d+) (\S+) (\d+) (typ host.*)$/;

function parseLine(line: string): CandidateLine | null {
  const m = CANDIDATE.exec(line);
  if (!m) return null;
  return {
    foundation: m[1]!,
    component: m[2]!,
    transport: m[3]!,
    priority: Number(m[4]),
    address: m[5]!,
    port: m[6]!,
    rest: m[7]!,
  };
}

/**
 * The SDP with, after each host candidate, the same candidate on `publicIp` (its foundation
 * prefixed `p`, priority one lower). Unchanged when `publicIp` is unset or already advertised.
 */
export function advertisePublicIp(sdp: string, publicIp: string | undefined): string {
  if (!publicIp) return sdp;
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const out: string[] = [];
  for (const line of sdp.split(eol)) {
    out.push(line);
    const c = parseLine(line);
    if (!c || c.address === publicIp) continue;
    const priority = Math.max(0, c.priority - 1);
    out.push(
      `a=candidate:p${c.foundation} ${c.component} ${c.transport} ${priority} ${publicIp} ${c.port} ${c.rest}`,
    );
  }
  return out.join(eol);
}
