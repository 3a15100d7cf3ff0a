import { defineConfig } from 'vitest/config';

// Two tiers: `unit` is pure logic without I/O; `integration` talks to one real local control plane
// (etcd, kube-apiserver, kube-controller-manager, kwok) started once per run by the global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          // Tests share one control plane; files run in parallel, each test in its own namespace.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
