import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSigned } from '../../../../test/support/tls-cert.js';
import { tlsClientTrust } from './tls-trust.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sb-tls-trust-'));
  dirs.push(d);
  return d;
}

describe('tlsClientTrust (SIP_TLS_CA)', () => {
  it("leaves Node's default store alone without SIP_TLS_CA", () => {
    expect(tlsClientTrust({ tlsCa: undefined, nodeExtraCaCerts: undefined })).toBeUndefined();
    // NODE_EXTRA_CA_CERTS alone is Node's business: its default store already has it.
    expect(tlsClientTrust({ tlsCa: undefined, nodeExtraCaCerts: '/nowhere.pem' })).toBeUndefined();
  });

  it("trusts the carrier's CA beside Node's bundled CAs and NODE_EXTRA_CA_CERTS", () => {
    const carrier = selfSigned(dir());
    const extra = selfSigned(dir());
    const ca = tlsClientTrust({ tlsCa: carrier.certPath, nodeExtraCaCerts: extra.certPath })!.ca as string[];
    expect(ca).toHaveLength(rootCertificates.length + 2);
    expect(ca.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
    expect(ca[ca.length - 2]).toBe(extra.cert.trim());
    expect(ca[ca.length - 1]).toBe(carrier.cert.trim());
  });

  it('takes every certificate of a bundle, and nothing but certificates (a key in the file is left out)', () => {
    const a = selfSigned(dir());
    const b = selfSigned(dir());
    const bundle = join(dir(), 'bundle.pem');
    writeFileSync(bundle, `${a.cert}${a.key}${b.cert}`);
    const ca = tlsClientTrust({ tlsCa: bundle, nodeExtraCaCerts: undefined })!.ca as string[];
    expect(ca.slice(rootCertificates.length)).toEqual([a.cert.trim(), b.cert.trim()]);
  });

  it('refuses a file it cannot read, or one without a certificate, naming the variable', () => {
    const d = dir();
    expect(() => tlsClientTrust({ tlsCa: join(d, 'missing.pem'), nodeExtraCaCerts: undefined })).toThrow(
      /^SIP_TLS_CA: cannot read .*missing\.pem: ENOENT/,
    );
    const keyOnly = join(d, 'key.pem');
    writeFileSync(keyOnly, selfSigned(d).key);
    expect(() => tlsClientTrust({ tlsCa: keyOnly, nodeExtraCaCerts: undefined })).toThrow(
      `SIP_TLS_CA: ${keyOnly} holds no PEM certificate`,
    );
    const ok = selfSigned(dir()).certPath;
    expect(() => tlsClientTrust({ tlsCa: ok, nodeExtraCaCerts: join(d, 'gone.pem') })).toThrow(
      /^NODE_EXTRA_CA_CERTS: cannot read/,
    );
  });
});
