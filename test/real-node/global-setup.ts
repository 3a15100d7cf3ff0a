// One control plane with kube-scheduler, two kwok nodes and one real node for the whole suite. When
// the host cannot run a real node the suite is skipped with the reason, loudly; CI requires it.
import type { TestProject } from 'vitest/node';
import { LocalCluster, fakeNodes, type ClusterState } from '../../lab/local-cluster/index.ts';
import { ESTIMATOR_TENSORFLOW_VERSION, RealNode, TENSORFLOW_VERSION } from '../../lab/local-cluster/real-node/index.ts';
import { installCrds } from '../support/crd.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
    realNode: { readonly name: string; readonly workDir: string } | { readonly skipped: string };
  }
}

const required = () => process.env.TFJOB_REAL_NODE_REQUIRED === '1' || process.env.CI === 'true';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const problem = RealNode.unavailable();
  if (problem !== undefined) {
    const line = '='.repeat(100);
    process.stderr.write(
      `${line}\n[real-node] SKIPPED: the real-node suite did not run because ${problem}.\n` +
        '[real-node] See docs/real-node.md. TFJOB_REAL_NODE_REQUIRED=1 (or CI=true) makes this an error.\n' +
        `${line}\n`,
    );
    if (required()) throw new Error(`real-node suite required but ${problem}`);
    project.provide('realNode', { skipped: problem });
    return async () => {};
  }
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = await LocalCluster.start({ scheduler: true, onProgress: progress });
  let node: RealNode | undefined;
  try {
    await installCrds(cluster.kubeConfig());
    // kwok nodes for scale next to the real one; the tests' jobs select the real node.
    await cluster.createNodes(fakeNodes('kwok', 2, { capacity: { cpu: '8', memory: '32Gi' } }));
    // Two TensorFlow images: the current one, and the last with tf.estimator for the Estimator style.
    node = await RealNode.start({
      kubeconfig: cluster.kubeconfigPath,
      tensorflowVersions: [TENSORFLOW_VERSION, ESTIMATOR_TENSORFLOW_VERSION],
      onProgress: progress,
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  project.provide('cluster', cluster.state);
  project.provide('realNode', { name: node.nodeName, workDir: node.state.workDir });
  return async () => {
    const problems = await node.stop(progress);
    const dead = cluster.deadComponents();
    await cluster.stop();
    if (problems.length > 0) throw new Error(`real node cleanup left: ${problems.join('; ')}`);
    if (dead.length > 0) throw new Error(`control-plane components died during the run: ${dead.join(', ')}`);
  };
}
