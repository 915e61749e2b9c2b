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
      {
        test: {
          // Faults (issue: reliability): runtimes that die, on real runtimes of their own.
          name: 'fault',
          include: ['test/fault/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // The real kubelet against knode on containerd 2 (test/differential/README.md):
          // about four minutes, alone after the other projects, since its checkpoints
          // are seconds and a machine busy with other suites would move them.
          name: 'differential',
          include: ['test/differential/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // critest, the CRI conformance suite, against the embedded runtime
          // (test/peers/critest.sh): about four minutes, last and alone, since
          // its specs wait on containers with deadlines of their own.
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 25 * 60_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
