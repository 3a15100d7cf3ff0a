// `node lab/cli/main.ts cluster up|down|status`: the embedded local control plane, by hand.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installCrds } from '../local-cluster/crd.ts';
import { LocalCluster, REPO_ROOT, fakeNodes } from '../local-cluster/index.ts';
import {
  ESTIMATOR_TENSORFLOW_VERSION,
  RealNode,
  readRealNodeState,
  stopRealNode,
  TENSORFLOW_VERSION,
} from '../local-cluster/real-node/index.ts';

const HELP = `usage: node lab/cli/main.ts cluster <up|down|status> [options]

  up       start etcd, kube-apiserver, kube-controller-manager, kwok (and kube-scheduler with
           --scheduler), install the CRDs (TFJob, ClusterQueue, LocalQueue), create fake nodes,
           print the KUBECONFIG path and return; the cluster keeps running until \`cluster down\`
  down     stop the cluster started by \`up\`
  status   print the state of the cluster started by \`up\`

options (up):
  --nodes N          fake nodes to create (default 3)
  --cpu Q            cpu per node (default 10)
  --memory Q         memory per node (default 32Gi)
  --gpu N            nvidia.com/gpu per node (default 0)
  --scheduler        also start kube-scheduler (needed for --policy tf-operator, and for any pod the
                     operator does not place itself)
  --no-crds          do not install the CRDs
  --real-node        also start one real node (containerd, kubelet, cluster DNS, local images incl.
                     TensorFlow) next to the fake ones; needs root, installs Debian packages it lacks,
                     ~6 min the first time (builds), ~1 min after
  --no-tensorflow    with --real-node: skip the TensorFlow image (pause and busybox only)
  --estimator        with --real-node: also build tensorflow-cpu:${ESTIMATOR_TENSORFLOW_VERSION} (the last
                     TensorFlow with tf.estimator), ~2 min more the first time
  --dir DIR          state directory (default .cache/clusters/default)
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      nodes: { type: 'string', default: '3' },
      cpu: { type: 'string', default: '10' },
      memory: { type: 'string', default: '32Gi' },
      gpu: { type: 'string', default: '0' },
      scheduler: { type: 'boolean', default: false },
      'real-node': { type: 'boolean', default: false },
      'no-crds': { type: 'boolean', default: false },
      'no-tensorflow': { type: 'boolean', default: false },
      estimator: { type: 'boolean', default: false },
      dir: { type: 'string', default: path.join(REPO_ROOT, '.cache', 'clusters', 'default') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const action = positionals[0];
  if (values.help || action === undefined) {
    console.log(HELP);
    return values.help ? 0 : 2;
  }
  const dir = path.resolve(values.dir);
  switch (action) {
    case 'up': {
      const existing = LocalCluster.readState(dir);
      if (existing !== undefined) {
        console.error(`a cluster is already running from ${dir} (KUBECONFIG=${existing.kubeconfig}); run \`cluster down\` first`);
        return 1;
      }
      const nodes = Number(values.nodes);
      const gpu = Number(values.gpu);
      if (!Number.isInteger(nodes) || nodes < 0) return usageError(`--nodes must be a non-negative integer, got "${values.nodes}"`);
      if (!Number.isInteger(gpu) || gpu < 0) return usageError(`--gpu must be a non-negative integer, got "${values.gpu}"`);
      const cluster = await LocalCluster.start({ workDir: dir, tiedToProcess: false, scheduler: values.scheduler });
      const capacity: Record<string, string> = { cpu: values.cpu, memory: values.memory };
      if (gpu > 0) capacity['nvidia.com/gpu'] = String(gpu);
      if (!values['no-crds']) await installCrds(cluster.kubeConfig());
      await cluster.createNodes(fakeNodes('kwok-node', nodes, { capacity }));
      if (values['real-node']) {
        const problem = RealNode.unavailable();
        if (problem !== undefined) {
          await LocalCluster.stopDetached(dir);
          console.error(`cannot start a real node here: ${problem}`);
          return 1;
        }
        try {
          const node = await RealNode.start({
            kubeconfig: cluster.kubeconfigPath,
            tiedToProcess: false,
            tensorflow: !values['no-tensorflow'],
            tensorflowVersions: values.estimator ? [TENSORFLOW_VERSION, ESTIMATOR_TENSORFLOW_VERSION] : [TENSORFLOW_VERSION],
          });
          writeFileSync(path.join(dir, REAL_NODE_POINTER), node.state.workDir);
          console.log(`Real node ${node.nodeName} is Ready (images: ${node.images.map((i) => i.reference).join(', ')}).`);
        } catch (err) {
          await LocalCluster.stopDetached(dir);
          console.error((err as Error).message);
          return 1;
        }
      }
      console.log(
        `Local cluster is up (${nodes} fake nodes, ${values.cpu} cpu / ${values.memory} each), started in ${(cluster.state.startupMs / 1000).toFixed(1)} s.`,
      );
      console.log(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
      console.log(
        `  export PATH=${path.dirname(cluster.state.kubectl)}:$PATH   # kubectl ${path.basename(path.dirname(cluster.state.kubectl))}`,
      );
      console.log(
        `Stop it with: hack/dev cluster down${values.dir === path.join(REPO_ROOT, '.cache', 'clusters', 'default') ? '' : ` --dir ${dir}`}`,
      );
      console.log(cluster.kubeconfigPath);
      return 0;
    }
    case 'down': {
      await stopRealNodeOf(dir);
      if (!existsSync(dir) || !(await LocalCluster.stopDetached(dir))) {
        console.error(`no cluster state in ${dir}`);
        return 1;
      }
      console.log(`Local cluster in ${dir} stopped.`);
      return 0;
    }
    case 'status': {
      const state = LocalCluster.readState(dir);
      if (state === undefined) {
        console.log('no local cluster is running');
        return 1;
      }
      console.log(JSON.stringify(state, null, 2));
      return 0;
    }
    default:
      return usageError(`unknown action "${action}"`);
  }
}

const REAL_NODE_POINTER = 'real-node-dir';

/** Stops the real node `cluster up --real-node` started in `dir`, before the control plane goes. */
async function stopRealNodeOf(dir: string): Promise<void> {
  const pointer = path.join(dir, REAL_NODE_POINTER);
  if (!existsSync(pointer)) return;
  const state = readRealNodeState(readFileSync(pointer, 'utf8').trim());
  if (state !== undefined) {
    const problems = await stopRealNode(state, (line) => {
      console.error(line);
    });
    for (const p of problems) console.error(`real node cleanup: ${p}`);
  }
  rmSync(pointer, { force: true });
}

function usageError(message: string): number {
  console.error(`${message}\n\n${HELP}`);
  return 2;
}
