// `npm run gen:client`: regenerates src/client/openapi.json and src/client/schema.ts from the
// routes. Run it after changing a route's schema; the drift test says when it is needed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateClientFiles } from './generate.js';

// Built to dist/src/client/: the sources are three folders up, in src/client/.
const here = path.dirname(fileURLToPath(import.meta.url));
const target = path.resolve(here, '../../../src/client');

const files = await generateClientFiles();
for (const [name, text] of Object.entries(files)) {
  fs.writeFileSync(path.join(target, name), text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(target, name))}\n`);
}
