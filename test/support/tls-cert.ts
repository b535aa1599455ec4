// A throwaway TLS certificate for tests that talk TLS to a real peer (baresip, Kamailio) or to our
// own SIP transport: a P-256 key and a self-signed certificate for 127.0.0.1 and localhost, made
// by the openssl command line in `dir`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCertificate {
  cert: string;
  key: string;
  certPath: string;
  keyPath: string;
  /** Certificate and key in one file, as baresip takes them. */
  bundlePath: string;
}

export function selfSigned(dir: string): TestCertificate {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      ...['-keyout', keyPath, '-out', certPath],
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(certPath, 'utf8');
  const key = readFileSync(keyPath, 'utf8');
  const bundlePath = join(dir, 'bundle.pem');
  writeFileSync(bundlePath, cert + key);
  return { cert, key, certPath, keyPath, bundlePath };
}
