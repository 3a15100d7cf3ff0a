// `tfjob-operator demo`: the README's main command. For now it brings up the embedded local cluster
// with the paper's testbed (3 fake nodes of 10 cpu / 32Gi) and keeps it running until Ctrl-C; the
// operator and the kod2-paper workload join it as they land.
import path from 'node:path';
import { LocalCluster, fakeNodes } from '../local-cluster/index.ts';

export async function main(_argv: string[]): Promise<number> {
  const cluster = await LocalCluster.start();
  const stop = async () => {
    console.log('\nStopping the local cluster...');
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await cluster.createNodes(fakeNodes('kwok-node', 3, { capacity: { cpu: '10', memory: '32Gi' } }));
  console.log(`
Local cluster up in ${(cluster.state.startupMs / 1000).toFixed(1)} s with 3 fake nodes (10 cpu / 32Gi each).
In another shell:
  export KUBECONFIG=${cluster.kubeconfigPath}
  export PATH=${path.dirname(cluster.state.kubectl)}:$PATH
  kubectl get nodes
Press Ctrl-C to stop it.`);
  await new Promise(() => undefined);
  return 0;
}
