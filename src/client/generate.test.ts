// The typed client cannot drift from the routes: the OpenAPI document and the types are generated
// again here, in memory, and must equal the files in the repository (`npm run gen:client` rewrites them).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateClientFiles } from './generate.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('generated client files', () => {
  it('match what the routes generate now (run `npm run gen:client` when this fails)', async () => {
    const files = await generateClientFiles();
    for (const [name, text] of Object.entries(files)) {
      expect(fs.readFileSync(path.join(here, name), 'utf8'), `${name} is stale: run npm run gen:client`).toBe(
        text,
      );
    }
  });

  it('describe every /api/v1 route the dashboard uses', async () => {
    const document = JSON.parse(fs.readFileSync(path.join(here, 'openapi.json'), 'utf8')) as {
      paths: Record<string, unknown>;
    };
    for (const p of [
      '/api/v1/sip-trunks',
      '/api/v1/phone-numbers/{id}/dispatch-test',
      '/api/v1/webhook-deliveries/{id}/redeliver',
      '/api/v1/usage',
    ]) {
      expect(document.paths, p).toHaveProperty([p]);
    }
  });
});
