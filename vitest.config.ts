import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two projects in one run: the service (node; src/ and test/, browser journeys included) and the
// dashboard's components (web/, in jsdom).
export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores: interop tests with real peers and the store suites should not starve each other.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      {
        test: {
          name: 'service',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        esbuild: { jsx: 'automatic' },
        resolve: {
          alias: {
            'switchboard/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)),
            'switchboard/web': fileURLToPath(new URL('./web-voice/src/index.ts', import.meta.url)),
          },
        },
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['web/src/test/setup.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
