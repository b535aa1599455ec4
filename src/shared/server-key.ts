// The server's master key: signs join tokens and encrypts secrets kept at rest (trunk passwords,
// webhook signing secrets). Taken from SWITCHBOARD_SECRET_KEY when set (required when several
// nodes share one PostgreSQL); otherwise generated once and kept in the data directory, mode 0600,
// apart from the database so a copied database alone does not reveal the secrets.
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The master key's file in the data directory (also what a backup copies). */
export const KEY_FILE = 'server.key';

export interface ServerKeys {
  /** HMAC key for join tokens (HS256). */
  joinToken: Uint8Array;
  /** AES-256-GCM key for secrets at rest. */
  secretBox: Buffer;
}

export function deriveServerKeys(master: string): ServerKeys {
  const ikm = createHash('sha256').update(master, 'utf8').digest();
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), info, 32));
  return {
    joinToken: new Uint8Array(derive('switchboard join token v1')),
    secretBox: derive('switchboard secret box v1'),
  };
}

/** Reads the master key from config or the data dir, creating it on first use. */
export function loadMasterKey(secretKey: string | undefined, dataDir: string): string {
  if (secretKey) return secretKey;
  const file = path.join(dataDir, KEY_FILE);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process (the CLI next to a starting server) won the race: use its key.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw err;
  }
}
