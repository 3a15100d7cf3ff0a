// One real control plane per integration run, shared by every test file (each test uses its own
// namespace). Started here, stopped in the returned teardown; the local cluster's watchdog cleans
// up even if vitest itself is killed. The CRDs (TFJob, ClusterQueue, LocalQueue) are installed once, as a user would.
import type { TestProject } from 'vitest/node';
import { LocalCluster, fakeNodes, type ClusterState } from '../../lab/local-cluster/index.ts';
import { installCrds } from '../support/crd.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await LocalCluster.start({
    // kube-scheduler places the pods of tf-operator-compatible mode; priority mode sets nodeName.
    scheduler: true,
    // ConfigMap watches bypass the watch cache and are served by etcd directly, so the informer tests
    // can force a real 410 Gone by compacting etcd. No operator code path watches ConfigMaps.
    extraApiserverArgs: ['--watch-cache-sizes=configmaps#0'],
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  try {
    await installCrds(cluster.kubeConfig());
    // Shared, roomy nodes for tests that let kube-scheduler place pods (tf-operator compatible mode).
    // Tests of our own placement create dedicated, tainted nodes instead, so they never compete.
    await cluster.createNodes(
      fakeNodes('shared', 4, { capacity: { cpu: '64', memory: '256Gi', 'nvidia.com/gpu': '8' }, labels: { 'tfjob-test/pool': 'shared' } }),
    );
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  project.provide('cluster', cluster.state);
  return async () => {
    const dead = cluster.deadComponents();
    await cluster.stop();
    if (dead.length > 0) throw new Error(`control-plane components died during the run: ${dead.join(', ')}`);
  };
}
