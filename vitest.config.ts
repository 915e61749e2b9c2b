import { defineConfig } from 'vitest/config';

// Tests by the path they exercise (../shared/STYLE.md): unit (one component,
// fake clock), integration (real gRPC, the real embedded runtime and a real
// containerd), e2e (bin/run.js as a black box). `npm test` builds first, because
// the embedded runtime and the e2e tests run the built CLI as child processes.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/setup/peers.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
