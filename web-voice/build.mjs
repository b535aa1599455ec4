// Builds the browser side of web voice into web-voice/dist: switchboard-web.js (the ES module the
// package exports as switchboard/web), join.js (the /join page's script), widget.js (the
// embeddable call button), the page's HTML and CSS, and the module's type declarations.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
mkdirSync(out, { recursive: true });
const common = {
  bundle: true,
  target: ['chrome100', 'firefox100', 'safari15'],
  legalComments: 'none',
  logLevel: 'warning',
};
await Promise.all([
  build({
    ...common,
    entryPoints: [join(here, 'src/index.ts')],
    format: 'esm',
    outfile: join(out, 'switchboard-web.js'),
  }),
  build({
    ...common,
    entryPoints: [join(here, 'src/join-page.ts')],
    format: 'iife',
    minify: true,
    outfile: join(out, 'join.js'),
  }),
  build({
    ...common,
    entryPoints: [join(here, 'src/widget.ts')],
    format: 'iife',
    minify: true,
    outfile: join(out, 'widget.js'),
  }),
]);
for (const file of ['join.html', 'join.css']) copyFileSync(join(here, 'public', file), join(out, file));
