// Would answering overload's 503 from a thread of its own keep every refusal within 10 ms while
// the main event loop has long tasks? An experiment, not the service: a UDP socket that answers
// each INVITE-sized datagram with a 503 (a refusal) or hands it on (an admitted call),
//   main   : the socket on the main thread, which also runs a synthetic long task of STALL_MS every
//            PERIOD_MS (the stalls seen under call set-up load);
//   thread : the socket on a worker thread that answers refusals itself and posts the admitted
//            datagrams to the main thread (which stalls the same way) and back out.
// A client in another process sends RATE datagrams a second (one in ADMIT_EVERY admitted, the rest
// refused) and times each answer. Prints p50/p99/max and how many over 10 ms, per mode and per
// kind, and the main thread's CPU per datagram handed over and answered through the thread against
// received and answered on its own socket (the cost of the hop, on every message a call has).
//
//   node dist/bench/refusal-thread.js   (REFUSAL_STALL_MS=20 REFUSAL_PERIOD_MS=200 REFUSAL_RATE=180
//                                         REFUSAL_SECONDS=10)
import { fork } from 'node:child_process';
import dgram from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const STALL_MS = Number(process.env.REFUSAL_STALL_MS ?? 20);
const PERIOD_MS = Number(process.env.REFUSAL_PERIOD_MS ?? 200);
const RATE = Number(process.env.REFUSAL_RATE ?? 180);
const SECONDS = Number(process.env.REFUSAL_SECONDS ?? 10);
const ADMIT_EVERY = 3;
/** About the size of a carrier's INVITE with SDP. */
const PAD = 'x'.repeat(800);

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** The answer to a datagram `A <n>` (admitted) or `R <n>` (refused): the same bytes back. */
function answer(msg: Buffer): Buffer {
  return msg.subarray(0, msg.indexOf(32, 2));
}

/** Client: sends, times each answer by its number; reports to the parent. */
async function client(port: number): Promise<void> {
  const sock = dgram.createSocket('udp4');
  const sentAt = new Map<number, number>();
  const times = { admitted: [] as number[], refused: [] as number[] };
  sock.on('message', (m) => {
    const [kind, n] = m.toString().split(' ');
    const t = sentAt.get(Number(n));
    if (t === undefined) return;
    (kind === 'A' ? times.admitted : times.refused).push(performance.now() - t);
    sentAt.delete(Number(n));
  });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  const total = RATE * SECONDS;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    sentAt.set(i, performance.now());
    sock.send(`${i % ADMIT_EVERY === 0 ? 'A' : 'R'} ${i} ${PAD}`, port, '127.0.0.1');
  }
  await new Promise((r) => setTimeout(r, 500));
  process.send!({ ...times, lost: sentAt.size });
  sock.close();
}

/** The worker: owns the socket, answers refusals, hands admitted datagrams to the main thread. */
function refusalThread(): void {
  const sock = dgram.createSocket('udp4');
  const port = parentPort!;
  port.on('message', (m: { data: Uint8Array; port: number }) => sock.send(m.data, m.port, '127.0.0.1'));
  sock.on('message', (msg, rinfo) => {
    if (msg[0] === 82) return sock.send(answer(msg), rinfo.port, rinfo.address); // 'R'
    port.postMessage({ data: msg, port: rinfo.port });
  });
  sock.bind(0, '127.0.0.1', () => port.postMessage({ listening: sock.address().port }));
}

async function run(mode: 'main' | 'thread'): Promise<void> {
  let port: number;
  let close: () => Promise<void>;
  if (mode === 'main') {
    const sock = dgram.createSocket('udp4');
    sock.on('message', (msg, rinfo) => sock.send(answer(msg), rinfo.port, rinfo.address));
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
    port = sock.address().port;
    close = () => new Promise((r) => sock.close(() => r()));
  } else {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { thread: true } });
    port = await new Promise<number>((r) => w.once('message', (m: { listening: number }) => r(m.listening)));
    w.on('message', (m: { data: Uint8Array; port: number }) =>
      w.postMessage({ data: answer(Buffer.from(m.data)), port: m.port }),
    );
    close = () => w.terminate().then(() => undefined);
  }
  const stalls = setInterval(() => busy(STALL_MS), PERIOD_MS);
  const child = fork(fileURLToPath(import.meta.url), ['client', String(port)]);
  const result = await new Promise<{ admitted: number[]; refused: number[]; lost: number }>((r) =>
    child.once('message', r as (m: unknown) => void),
  );
  clearInterval(stalls);
  await close();
  for (const kind of ['refused', 'admitted'] as const) {
    const v = result[kind].sort((a, b) => a - b);
    const at = (p: number) => v[Math.min(v.length - 1, Math.ceil((v.length * p) / 100) - 1)] ?? NaN;
    console.log(
      `  ${mode.padEnd(6)} ${kind.padEnd(8)}: ${v.length}, p50 ${at(50).toFixed(2)} ms, p99 ${at(99).toFixed(2)} ms, ` +
        `max ${(v.at(-1) ?? NaN).toFixed(2)} ms, ${v.filter((x) => x > 10).length} over 10 ms`,
    );
  }
}

/** Main-thread CPU per admitted datagram: own socket vs through the thread (no stalls, no refusals). */
async function hopCost(mode: 'main' | 'thread', n: number): Promise<number> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  let target: number;
  let got = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  sock.on('message', () => ++got === n && done());
  let cleanup: () => Promise<void>;
  if (mode === 'main') {
    const server = dgram.createSocket('udp4');
    server.on('message', (msg, rinfo) => server.send(answer(msg), rinfo.port, rinfo.address));
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
    target = server.address().port;
    cleanup = () => new Promise((r) => server.close(() => r()));
  } else {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { thread: true } });
    target = await new Promise<number>((r) =>
      w.once('message', (m: { listening: number }) => r(m.listening)),
    );
    w.on('message', (m: { data: Uint8Array; port: number }) =>
      w.postMessage({ data: answer(Buffer.from(m.data)), port: m.port }),
    );
    cleanup = () => w.terminate().then(() => undefined);
  }
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    sock.send(`A ${i} ${PAD}`, target, '127.0.0.1');
    if (i % 20 === 19) await new Promise((r) => setTimeout(r, 1));
  }
  // A datagram the kernel dropped (a loaded machine) is not waited for past a second.
  await Promise.race([finished, new Promise((r) => setTimeout(r, 1000).unref())]);
  const cpu = process.cpuUsage(before);
  await cleanup();
  sock.close();
  return (cpu.user + cpu.system) * (n / Math.max(1, got));
}

if (!isMainThread && (workerData as { thread?: boolean })?.thread) refusalThread();
else if (process.argv[2] === 'client') await client(Number(process.argv[3]));
else {
  console.log(
    `refusals from the main thread or a thread of their own: ${RATE} INVITEs/s for ${SECONDS} s, ` +
      `1 in ${ADMIT_EVERY} admitted; the main thread busy ${STALL_MS} ms every ${PERIOD_MS} ms`,
  );
  await run('main');
  await run('thread');
  // The client and the server in one process here: the difference between the modes is the hop.
  const n = 20_000;
  const own = await hopCost('main', n);
  const hop = await hopCost('thread', n);
  console.log(
    `  process CPU per admitted datagram answered: ${(own / n).toFixed(1)} µs on the main thread's own socket, ` +
      `${(hop / n).toFixed(1)} µs through the thread (+${((hop - own) / n).toFixed(1)} µs, both threads)`,
  );
}
