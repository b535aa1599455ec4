// Builds the dashboard into web/dist, which the service serves at / (src/web-serving/). Hashed
// file names under /assets/ let the server cache them for a year; the workflow editor is its own
// chunk (a lazy route). The typed client lives in the server's src/client/ and is aliased here.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: {
      'switchboard/client': fileURLToPath(new URL('../src/client/index.ts', import.meta.url)),
      // Browser voice ("Talk to it" by microphone), loaded on demand from the editor.
      'switchboard/web': fileURLToPath(new URL('../web-voice/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline module-preload polyfill: the Content-Security-Policy allows no inline script.
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: {
    // `npm run dev -w web` proxies the API to a running `npm start`.
    proxy: { '/api': { target: 'http://127.0.0.1:8080', ws: true } },
  },
});
