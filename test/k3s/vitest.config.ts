// The k3s end-to-end suite (docs/k3s-e2e.md): a real k3s cluster in Docker via testcontainers, the
// operator image built from the repository's Dockerfile and installed from config/, and a TFJob run to
// completion with real pods. Separate from the `unit` and `integration` projects because it needs a
// Docker engine; without one (or without the testcontainers devDependencies) its global setup prints
// why and the suite is reported as skipped, unless TFJOB_K3S_REQUIRED=1 makes that an error.
//
//   npx vitest run --config test/k3s/vitest.config.ts
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
  test: {
    name: 'k3s',
    include: ['test/k3s/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/k3s/global-setup.ts'],
    // Building the image (npm ci in Docker), pulling k3s and busybox: minutes on a cold machine.
    testTimeout: 600_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
  },
});
