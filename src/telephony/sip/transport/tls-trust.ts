// The certificates the TLS connections we open trust (a trunk's termination host, its registrar).
// By default Node's own store: its bundled CAs and NODE_EXTRA_CA_CERTS. SIP_TLS_CA adds a carrier's
// private CA for SIP alone. Node's `ca` option replaces the default store instead of adding to
// it, so the bundled CAs and the NODE_EXTRA_CA_CERTS file are listed again beside it.
import { readFileSync } from 'node:fs';
import { rootCertificates, type ConnectionOptions } from 'node:tls';

export interface TlsTrustFiles {
  /** SIP_TLS_CA: a PEM file of one or more CA certificates. */
  readonly tlsCa: string | undefined;
  /** NODE_EXTRA_CA_CERTS, which Node trusts unless a `ca` list replaces its store. */
  readonly nodeExtraCaCerts: string | undefined;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM file; throws naming `variable` when it cannot be read or holds none. */
function certificatesOf(file: string, variable: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read ${file}: ${(err as Error).message}`);
  }
  const found = text.match(PEM_CERTIFICATE);
  if (!found) throw new Error(`${variable}: ${file} holds no PEM certificate`);
  return found;
}

/**
 * Options for outbound TLS: undefined (Node's default store) without SIP_TLS_CA, else a `ca` list
 * of Node's bundled CAs, the NODE_EXTRA_CA_CERTS file's and SIP_TLS_CA's. Read once, at start.
 */
export function tlsClientTrust(files: TlsTrustFiles): ConnectionOptions | undefined {
  if (!files.tlsCa) return undefined;
  const extra = files.nodeExtraCaCerts ? certificatesOf(files.nodeExtraCaCerts, 'NODE_EXTRA_CA_CERTS') : [];
  return { ca: [...rootCertificates, ...extra, ...certificatesOf(files.tlsCa, 'SIP_TLS_CA')] };
}
