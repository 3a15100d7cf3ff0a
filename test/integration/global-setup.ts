// One real control plane per integration run, shared by every test file (each test uses its own
// namespace). Started here, stopped in the returned teardown; the local cluster's watchdog cleans
// up even if vitest itself is killed.
import type { TestProject } from 'vitest/node';
import { LocalCluster, type ClusterState } from '../../src/local-cluster/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await LocalCluster.start({
    // ConfigMap watches bypass the watch cache and are served by etcd directly, so the informer tests
    // can force a real 410 Gone by compacting etcd. No operator code path watches ConfigMaps.
    extraApiserverArgs: ['--watch-cache-sizes=configmaps#0'],
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  project.provide('cluster', cluster.state);
  return async () => {
    const dead = cluster.deadComponents();
    await cluster.stop();
    if (dead.length > 0) throw new Error(`control-plane components died during the run: ${dead.join(', ')}`);
  };
}
