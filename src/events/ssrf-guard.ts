// The HTTP client webhooks go out through: an undici Agent whose connector checks every address
// at connect time. The check runs inside the socket's own DNS lookup, so the address checked is
// the address dialled; a name that resolves to a public address when the endpoint is saved and to
// 127.0.0.1 later (DNS rebinding) is refused on the connection that would have used it.
import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { SsrfRefusedError, type AddressPolicy } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests can fake DNS answers. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface GuardedAgentOptions {
  policy: AddressPolicy;
  resolver?: Resolver;
  /** TCP + TLS handshake limit; the 10 s delivery deadline is enforced by the sender on top. */
  connectTimeoutMs?: number;
  /** Idle keep-alive sockets per origin. */
  connections?: number;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | ResolvedAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls.connect that resolves with `resolver` and refuses the connection when ANY
 * resolved address is outside the policy (a name with one public and one private address could
 * otherwise be steered to the private one by the happy-eyeballs order).
 */
export function guardedLookup(policy: AddressPolicy, resolver: Resolver) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: LookupCallback,
  ) => {
    resolver(hostname).then(
      (answers) => {
        if (answers.length === 0) {
          callback(
            Object.assign(new Error(`No address found for "${hostname}".`), { code: 'ENOTFOUND' }),
            [],
          );
          return;
        }
        for (const a of answers) {
          const range = policy.refusal(a.address);
          if (range) {
            callback(new SsrfRefusedError(hostname, a.address, range), []);
            return;
          }
        }
        const family = options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 ? 4 : 0;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        if (options.all) callback(null, usable);
        else if (usable[0]) callback(null, usable[0].address, usable[0].family);
        else
          callback(
            Object.assign(new Error(`No IPv${family} address for "${hostname}".`), { code: 'ENOTFOUND' }),
            [],
          );
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/** Literal IP hosts never reach `lookup` (net.connect skips it), so the connector checks them first. */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy } = options;
  const lookup = guardedLookup(policy, options.resolver ?? systemResolver);
  const base = buildConnector({
    timeout: options.connectTimeoutMs ?? 10_000,
    lookup: lookup as unknown as typeof dns.lookup,
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host)) {
      const range = policy.refusal(host);
      if (range) {
        callback(new SsrfRefusedError(host, host, range), null);
        return;
      }
    }
    base(opts, callback);
  };
  return new Agent({
    connect,
    connections: options.connections ?? 64,
    keepAliveTimeout: 30_000,
    // Deadlines are the sender's (10 s for the whole exchange); these are only backstops.
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
}
