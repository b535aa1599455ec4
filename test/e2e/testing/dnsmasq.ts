// A real DNS server for tests: Debian's dnsmasq on a loopback port, answering only the records it
// is given (no upstream, no /etc/hosts), and logging every question it receives.
import { spawn, spawnSync } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { freeUdpPort } from '../../support/sipp.js';

export interface DnsServer {
  readonly port: number;
  /** Everything dnsmasq logged so far (one line per question with --log-queries). */
  log(): string;
  stop(): void;
}

export function haveDnsmasq(): boolean {
  return spawnSync('dnsmasq', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts dnsmasq with `records` (its own flags, e.g. --srv-host=…) and waits until it answers. */
export async function startDnsmasq(records: string[]): Promise<DnsServer> {
  const port = await freeUdpPort();
  const child = spawn(
    'dnsmasq',
    [
      '--keep-in-foreground',
      '--conf-file=/dev/null',
      '--pid-file=',
      `--port=${port}`,
      '--listen-address=127.0.0.1',
      '--bind-interfaces',
      '--no-resolv',
      '--no-hosts',
      '--log-queries',
      '--log-facility=-',
      // A name it has no record for is answered "no such name" at once, never forwarded.
      '--local=/test/',
      ...records,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`dnsmasq exited (${code}): ${log}`))),
  );
  exited.catch(() => {});
  const server: DnsServer = { port, log: () => log, stop: () => child.kill() };
  // Ready once it answers a question (a refused one counts: the socket is up).
  const probe = new Resolver({ timeout: 200, tries: 1 });
  probe.setServers([`127.0.0.1:${port}`]);
  for (let i = 0; i < 100; i++) {
    const answered = await Promise.race([
      probe.resolve4('ready.probe.test').then(
        () => true,
        (e: NodeJS.ErrnoException) => e.code !== 'ETIMEOUT' && e.code !== 'ECONNREFUSED',
      ),
      exited,
    ]);
    if (answered) return server;
    // A refusal comes back at once while dnsmasq is still binding: pause, or the tries run out first.
    await new Promise((r) => setTimeout(r, 50));
  }
  server.stop();
  throw new Error(`dnsmasq never answered on port ${port}: ${log}`);
}
