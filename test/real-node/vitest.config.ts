// The real-node suite (docs/real-node.md): real containers and real TensorFlow on one real kubelet
// node (containerd, runc, bridge CNI, CoreDNS) next to kwok nodes in the local control plane, under
// the operator. Needs root; elsewhere its global setup says why and the suite is skipped, unless
// TFJOB_REAL_NODE_REQUIRED=1 (or CI=true) makes that an error.
//
//   hack/dev test:real-node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
  test: {
    name: 'real-node',
    include: ['test/real-node/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/real-node/global-setup.ts'],
    // Real TensorFlow on 2 cores: a job takes tens of seconds to a few minutes.
    testTimeout: 600_000,
    // First run on a machine: packages, kubelet and CoreDNS builds, the TensorFlow image (~10 min).
    hookTimeout: 1_800_000,
    // One small node: files run one after another, each job alone on it.
    fileParallelism: false,
  },
});
