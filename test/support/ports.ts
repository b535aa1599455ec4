// Ports for the processes a test starts (serve, sipp, baresip, kamailio). A port the kernel hands
// out for `listen(0)` comes from the ephemeral range (32768–60999 here), the same range it draws on
// for every outgoing connection and every other `bind(0)` on the machine: between "found free" and
// the child's own bind, a browser's or a database client's connection can take it (CI once ended on
// `listen EADDRINUSE` that way). So ports are chosen below that range, in a slice of their own for
// each vitest worker, walking forward, and checked free for the protocols the child will bind.
import { createSocket } from 'node:dgram';
import net from 'node:net';

const FIRST = 10_000;
const SLICE = 600;
const WORKER_SLICES = 16; // 10,000 + 16 × 600 = 19,600: under the default RTP range (20,000–30,000).

const worker = Number(process.env.VITEST_POOL_ID ?? process.pid) % WORKER_SLICES;
// Each pick takes a block of four: baresip listens for TLS on its SIP port + 1, and sipp's media
// port brings its RTCP port (+ 1) along.
const STEP = 4;
let cursor = Math.floor(Math.random() * SLICE);

function tcpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

function udpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => {
      s.close();
      resolve(false);
    });
    s.bind(port, host, () => s.close(() => resolve(true)));
  });
}

/** A port free right now for the given protocols on `host`, outside the kernel's ephemeral range. */
export async function pickPort(protocols: ('tcp' | 'udp')[], host = '127.0.0.1'): Promise<number> {
  for (let tries = 0; tries < SLICE / STEP; tries++) {
    cursor = (cursor + STEP) % SLICE;
    const port = FIRST + worker * SLICE + (cursor - (cursor % STEP));
    let free = true;
    for (const p of protocols)
      free = free && (p === 'tcp' ? await tcpFree(port, host) : await udpFree(port, host));
    if (free) return port;
  }
  throw new Error(`no free port in ${FIRST + worker * SLICE}..${FIRST + (worker + 1) * SLICE - 1}`);
}
