// A second real node on the same host (issue 37, item 4, its first part): realnode-1 with its own
// kubelet, containerd, bridge (10.87.1.0/24, routed to realnode-0's pods through the host), cgroup
// root and ports, and 1 CPU held back from its allocatable. A PS/worker job of real TensorFlow with
// its PS on realnode-0 and its worker on realnode-1 trains to its planned step and Succeeds: PS ↔
// worker traffic crosses the two nodes' bridges, by service name through realnode-0's cluster DNS.
// Then a worker moves: a job trains on realnode-0, its worker pod is deleted (it checkpoints on
// SIGTERM) while only realnode-1 is schedulable, the operator re-creates it there (TF_CONFIG names
// services, so it stays valid), and the job goes on from its checkpoint to its planned step.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealNode, TENSORFLOW_VERSION } from '../../lab/local-cluster/real-node/index.ts';
import { clusterState, eventually } from '../support/kube.ts';
import { coreApi, createTFJob, waitForCondition, type TestTFJob } from '../support/tfjob.ts';
import {
  doneStep,
  firstStep,
  hostScratchDir,
  podLog,
  realJob,
  realNodeName,
  realNodeSkipped,
  startRealNodeRun,
  waitForStep,
  type RealNodeRun,
} from './support.ts';

const STEPS = 200;

/** The job with each replica type pinned to a node by its hostname label. */
function pinned(job: TestTFJob, nodes: Readonly<Record<string, string>>): TestTFJob {
  const specs = (job.spec as { tfReplicaSpecs: Record<string, { template: { spec: { nodeSelector: Record<string, string> } } }> })
    .tfReplicaSpecs;
  for (const [type, node] of Object.entries(nodes)) {
    const spec = specs[type]?.template.spec;
    if (spec === undefined) throw new Error(`no ${type} in the job`);
    spec.nodeSelector = { ...spec.nodeSelector, 'kubernetes.io/hostname': node };
  }
  return job;
}

describe.skipIf(realNodeSkipped() !== undefined)('a second real node on the same host', () => {
  let started: RealNode | undefined;
  let run: RealNodeRun | undefined;
  let ns: string;
  let second: RealNode;
  beforeAll(async () => {
    started = await RealNode.start({
      kubeconfig: clusterState().kubeconfig,
      index: 1,
      reservedCpu: '1',
      tensorflowVersions: [TENSORFLOW_VERSION],
      onProgress: (line) => process.stderr.write(`${line}\n`),
    });
    second = started;
    run = await startRealNodeRun('real-two-nodes', 'ours', ['--progress-period', '3s']);
    ns = run.ns;
  });
  afterAll(async () => {
    await run?.stop();
    const problems = (await started?.stop()) ?? [];
    if (problems.length > 0) throw new Error(`second real node cleanup left: ${problems.join('; ')}`);
  });

  it('holds back the reserved CPU from its allocatable', async () => {
    const node = await coreApi().readNode({ name: second.nodeName });
    expect(node.status?.allocatable?.['cpu']).toBe(String(Number(node.status?.capacity?.['cpu']) - 1));
  });

  it('trains a PS/worker job with its PS and its worker on different real nodes', async () => {
    const job = realJob(
      'split',
      { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '500m' } },
      { env: { STEPS: String(STEPS), STEP_SLEEP: '0.05', PROGRESS_EVERY: '10' } },
    );
    await createTFJob(ns, pinned(job, { PS: realNodeName(), Worker: second.nodeName }));
    // Read while it runs: cleanPodPolicy Running deletes the PS once the worker is done.
    const ps = await eventually(
      async () => {
        const p = await coreApi().readNamespacedPod({ name: 'split-ps-0', namespace: ns });
        return p.status?.phase === 'Running' && p.status.podIP !== undefined ? p : false;
      },
      { what: 'the PS running', timeoutMs: 240_000, intervalMs: 500 },
    );
    expect(ps.spec?.nodeName).toBe(realNodeName());
    expect(ps.status?.podIP).toMatch(/^10\.87\.0\./);
    const done = await waitForCondition(ns, 'split', 'Succeeded', { timeoutMs: 360_000 });
    expect(done.status?.replicaStatuses?.Worker?.succeeded).toBe(1);
    const worker = await coreApi().readNamespacedPod({ name: 'split-worker-0', namespace: ns });
    expect(worker.spec?.nodeName).toBe(second.nodeName);
    expect(worker.status?.podIP).toMatch(/^10\.87\.1\./);
    const log = await podLog(ns, 'split-worker-0');
    expect(doneStep(log)).toBeGreaterThanOrEqual(STEPS);
    // The worker found the PS on the other node by its service name.
    expect(log).toContain(`split-ps-0.${ns}.svc:2222`);
  });
  it('moves a worker to the other node: deleted, re-created there by the operator, and the job finishes', async () => {
    const moveSteps = 300;
    // Where the worker may go is the nodes' schedulability: first realnode-0 only, then realnode-1 only.
    await setUnschedulable(second.nodeName, true);
    try {
      const job = realJob(
        'moved',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '500m' } },
        // Checkpoints on the host (both nodes are on it): the re-created chief restores the global step.
        {
          env: { STEPS: String(moveSteps), STEP_SLEEP: '0.1', PROGRESS_EVERY: '10', CKPT_DIR: '/ckpt' },
          hostPath: hostScratchDir(`${ns}-moved`),
        },
      );
      await createTFJob(ns, pinned(job, { PS: realNodeName() }));
      await waitForStep(ns, 'moved-worker-0', 60);
      const before = await coreApi().readNamespacedPod({ name: 'moved-worker-0', namespace: ns });
      expect(before.spec?.nodeName).toBe(realNodeName());

      await setUnschedulable(second.nodeName, false);
      await setUnschedulable(realNodeName(), true);
      await coreApi().deleteNamespacedPod({ name: 'moved-worker-0', namespace: ns });
      const after = await eventually(
        async () => {
          const p = await coreApi().readNamespacedPod({ name: 'moved-worker-0', namespace: ns });
          return p.metadata?.uid !== before.metadata?.uid && p.spec?.nodeName !== undefined ? p : false;
        },
        { what: 'the worker re-created and placed', timeoutMs: 120_000, intervalMs: 500 },
      );
      expect(after.spec?.nodeName).toBe(second.nodeName);

      const done = await waitForCondition(ns, 'moved', 'Succeeded', { timeoutMs: 360_000 });
      expect(done.status?.replicaStatuses?.Worker?.succeeded).toBe(1);
      const log = await podLog(ns, 'moved-worker-0');
      process.stderr.write(
        `[two-nodes] worker moved ${realNodeName()} -> ${after.spec?.nodeName}, resumed at global step ${firstStep(log)}\n`,
      );
      // It went on from the checkpoint, against the PS on the other node, to the planned step.
      expect(firstStep(log)).toBeGreaterThan(0);
      expect(doneStep(log)).toBeGreaterThanOrEqual(moveSteps);
      expect(log).toContain(`moved-ps-0.${ns}.svc:2222`);
    } finally {
      await setUnschedulable(realNodeName(), false);
      await setUnschedulable(second.nodeName, false);
    }
  });
});

async function setUnschedulable(node: string, unschedulable: boolean): Promise<void> {
  await coreApi().patchNode({ name: node, body: { spec: { unschedulable } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}
