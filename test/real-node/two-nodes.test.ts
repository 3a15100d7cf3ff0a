// A second real node on the same host (issue 37, item 4, its first part): realnode-1 with its own
// kubelet, containerd, bridge (10.87.1.0/24, routed to realnode-0's pods through the host), cgroup
// root and ports, and 1 CPU held back from its allocatable. A PS/worker job of real TensorFlow with
// its PS on realnode-0 and its worker on realnode-1 trains to its planned step and Succeeds: PS ↔
// worker traffic crosses the two nodes' bridges, by service name through realnode-0's cluster DNS.
// Then a worker moves: a job trains on realnode-0, its worker pod is deleted (it checkpoints on
// SIGTERM) while only realnode-1 is schedulable, the operator re-creates it there (TF_CONFIG names
// services, so it stays valid), and the job goes on from its checkpoint to its planned step.
// Last, a move the operator decides (--vertical-policy specon, docs/scheduling.md §8.3): a converged
// elastic PS job shares realnode-0 with a job still learning whose limit is the whole node; once
// realnode-1 is schedulable the operator itself deletes the slow job's worker 1 and re-creates it there
// (same TF_CONFIG), it trains against the PS on realnode-0, and both jobs Succeed (specon-support.ts).
// And that move with the operator, a child process, SIGKILLed once the move is Moving: a new operator
// settles it on realnode-1, the worker re-created once, and refuses to move slow again in its cooldown.
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealNode, TENSORFLOW_VERSION } from '../../lab/local-cluster/real-node/index.ts';
import { LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import { InvariantMonitor } from '../support/invariants.ts';
import { adminKubeConfig, clusterState, createNamespace, eventually } from '../support/kube.ts';
import type { OperatorChild } from '../support/operator-child.ts';
import { parseMetrics, sumOf } from '../support/prometheus.ts';
import { tfConfigOf } from '../support/specon-jobs.ts';
import { coreApi, createTFJob, deleteTFJob, getTFJob, livePods, waitForCondition, type TestTFJob } from '../support/tfjob.ts';
import {
  eventLines,
  followPods,
  onFirstMoving,
  SLOW_STEPS,
  SPECON_FLAGS,
  fastJob,
  slowJob,
  speconSnapshot,
  speconStatusOf,
  type MigrationLast,
} from './specon-support.ts';
import {
  createTrainers,
  deleteNamespaceAndWait,
  doneStep,
  firstStep,
  hostScratchDir,
  lastStep,
  podsAndServices,
  podLog,
  realJob,
  realNodeName,
  realNodeSkipped,
  startOperatorProcess,
  startRealNodeRun,
  waitForServicesMatchingPods,
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

  describe('an operator-decided move (--vertical-policy specon)', () => {
    let specon: RealNodeRun | undefined;
    beforeAll(async () => {
      specon = await startRealNodeRun('real-specon', 'ours', SPECON_FLAGS);
    });
    afterAll(async () => {
      await specon?.stop();
    });

    it("moves a converged elastic job's worker off the contended node to realnode-1 by itself; both jobs Succeed", async () => {
      const started = Date.now();
      const at = () => `+${Math.round((Date.now() - started) / 1000)}s`;
      const sns = specon!.ns;
      const slowEvents = (reason: string) =>
        eventLines(sns, 'slow').then((lines) => lines.filter((l) => l.startsWith(`${reason}: `)).map((l) => l.slice(reason.length + 2)));
      const diagnosis = async () =>
        `${await speconSnapshot(sns)}\n  slow events: ${JSON.stringify(await eventLines(sns, 'slow'))}\n  fast events: ${JSON.stringify(await eventLines(sns, 'fast'))}`;

      // realnode-1 cordoned while the jobs are placed: all four pods land on realnode-0, where fast's
      // 2-core limit alone uses up the allocatable (contended). Then it is uncordoned and left alone.
      // fast comes once the operator has read slow's first loss: its run then spans slow's
      // classification however long slow's three pods took to start.
      await setUnschedulable(second.nodeName, true);
      let before: V1Pod | undefined;
      try {
        await createTFJob(sns, slowJob());
        await eventually(async () => speconStatusOf(await getTFJob(sns, 'slow')).progress?.step !== undefined, {
          what: "slow's first progress in its status",
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
        await createTFJob(sns, fastJob());
        const placed = await eventually(
          async () => {
            const pods = [...(await livePods(sns, 'slow')), ...(await livePods(sns, 'fast'))];
            return pods.length === 4 && pods.every((p) => (p.spec?.nodeName ?? '') !== '') ? pods : false;
          },
          { what: 'the four pods of slow and fast placed', timeoutMs: 120_000, intervalMs: 500 },
        );
        expect(placed.map((p) => p.spec?.nodeName)).toEqual(placed.map(() => realNodeName()));
        before = placed.find((p) => p.metadata?.name === 'slow-worker-1');
      } finally {
        await setUnschedulable(second.nodeName, false);
      }

      // The operator moves slow's worker 1 once FlowCon calls slow Completing while fast still learns.
      let traced = '';
      const migrated = await eventually(
        async () => {
          const now = await speconSnapshot(sns);
          if (now.replace(/step=\d+ /g, '') !== traced.replace(/step=\d+ /g, '')) process.stderr.write(`[specon ${at()}]\n  ${now}\n`);
          traced = now;
          const [hit] = await slowEvents('WorkerMigrated');
          if (hit === undefined) throw new Error(`no WorkerMigrated yet\n  ${await diagnosis()}`);
          return hit;
        },
        { what: 'the operator moving slow-worker-1 (WorkerMigrated)', timeoutMs: 300_000, intervalMs: 2_000 },
      );
      const movedAt = at();
      const [node0, node1] = [realNodeName(), second.nodeName];
      expect(migrated).toMatch(
        new RegExp(
          `^slow-worker-1 re-created on ${node1} \\(left ${node0}; .*SpeCon: ${sns}/slow is Completing .* ${sns}/fast \\((New|Watching), `,
        ),
      );
      expect(await slowEvents('WorkerMigrating')).toEqual([
        expect.stringMatching(new RegExp(`^slow-worker-1 deleted on ${node0} to be re-created on ${node1} `)),
      ]);
      expect(await slowEvents('MigrationTargetLost')).toEqual([]);
      const migration = await eventually(
        async () => {
          const m = speconStatusOf(await getTFJob(sns, 'slow')).migration;
          return m?.last?.state === 'Migrated' ? m : false;
        },
        { what: 'status.migration of slow Migrated', timeoutMs: 60_000 },
      );
      expect(migration).toMatchObject({ migrations: 1, last: { pod: 'slow-worker-1', from: node0, to: node1, state: 'Migrated' } });
      const metrics = parseMetrics(await specon!.operator.registry.metrics());
      expect(sumOf(metrics, 'tfjob_operator_worker_migrations_total', { namespace: sns, result: 'migrated' })).toBe(1);

      // The replacement: same name and TF_CONFIG, a new UID, on realnode-1; it joins the PS on realnode-0
      // by its Service name at the global step the job had reached, and trains.
      const replacement = await eventually(
        async () => {
          const p = await coreApi().readNamespacedPod({ name: 'slow-worker-1', namespace: sns });
          return p.metadata?.uid !== before?.metadata?.uid && p.status?.phase === 'Running' ? p : false;
        },
        { what: 'the replacement of slow-worker-1 running', timeoutMs: 120_000, intervalMs: 500 },
      );
      expect(replacement.spec?.nodeName).toBe(node1);
      expect(replacement.status?.podIP).toMatch(/^10\.87\.1\./);
      expect(tfConfigOf(replacement)).toBeDefined();
      expect(tfConfigOf(replacement)).toBe(tfConfigOf(before));
      const ps = await coreApi().readNamespacedPod({ name: 'slow-ps-0', namespace: sns });
      expect(ps.spec?.nodeName).toBe(node0);
      // Read while it runs: cleanPodPolicy Running deletes it once worker 0 is done.
      const log = await eventually(
        async () => {
          const l = await podLog(sns, 'slow-worker-1');
          const first = firstStep(l);
          return first !== undefined && lastStep(l) > first ? l : false;
        },
        { what: 'the moved worker training (two progress lines)', timeoutMs: 180_000, intervalMs: 1_000 },
      );
      expect(log).toContain(`slow-ps-0.${sns}.svc:2222`);
      expect(Number(/session open after \S+, global step (\d+)/.exec(log)?.[1])).toBeGreaterThan(0);

      const [slow, fast] = [
        await waitForCondition(sns, 'slow', 'Succeeded', { timeoutMs: 300_000 }),
        await waitForCondition(sns, 'fast', 'Succeeded', { timeoutMs: 300_000 }),
      ];
      expect(doneStep(await podLog(sns, 'slow-worker-0'))).toBeGreaterThanOrEqual(SLOW_STEPS);
      // The move was no failure: nothing counted failed, no restart.
      expect(slow.status?.replicaStatuses?.Worker?.failed).toBeUndefined();
      expect((slow.status?.conditions ?? []).map((c) => c.type)).not.toContain('Restarting');
      expect(await slowEvents('Restarting')).toEqual([]);
      for (const pod of ['slow-worker-0', 'fast-worker-0']) {
        const p = await coreApi().readNamespacedPod({ name: pod, namespace: sns });
        expect(p.status?.containerStatuses?.[0]?.restartCount, pod).toBe(0);
      }
      expect(fast.status?.replicaStatuses?.Worker?.succeeded).toBe(1);
      const doneAt = (job: TestTFJob) => Math.round((Date.parse(job.status?.completionTime ?? '') - started) / 1000);
      process.stderr.write(
        `[specon] slow-worker-1 moved ${node0} -> ${node1} at ${movedAt} (joined at global step ${firstStep(log)}); ` +
          `Succeeded: slow +${doneAt(slow)}s, fast +${doneAt(fast)}s; test body ${at()}\n`,
      );
    });
  });

  // Issue 39 item 4 on real pods: the same scenario, the operator a child process (`tfjob-operator run`)
  // SIGKILLed the moment slow's status.migration.last says Moving, and a new one started. That is the
  // earliest point a new operator can honour: Moving is written once the old worker's delete was
  // accepted, and names the target; killed at the removal mark, before it, the target died with the
  // operator (kwok's faults/migration-kill: the worker comes back wherever the pass puts it). The new
  // operator steers the replacement to realnode-1 from that status (even if its first pass comes before
  // SpeCon's first round) and settles the move, and the status's move time holds SpeCon's cooldown.
  describe('the operator SIGKILLed during a move it decided (child process)', () => {
    let kns: string;
    let monitor: InvariantMonitor | undefined;
    const operators: OperatorChild[] = [];
    const stops: (() => void)[] = [];
    beforeAll(async () => {
      kns = await createNamespace('real-specon-kill');
      await createTrainers(kns);
      monitor = await InvariantMonitor.start({ kubeConfig: adminKubeConfig(), namespace: kns, nodes: [realNodeName(), second.nodeName] });
    });
    afterAll(async () => {
      for (const stop of stops) stop();
      monitor?.stop();
      for (const o of operators) await o.kill('SIGKILL');
      await deleteNamespaceAndWait(kns);
    });

    it('SIGKILLed once the move is Moving: the new operator lands the worker on realnode-1 once, keeps the cooldown, slow Succeeds', async () => {
      const started = Date.now();
      const at = () => `+${Math.round((Date.now() - started) / 1000)}s`;
      const [node0, node1] = [realNodeName(), second.nodeName];
      const start = async () => {
        const op = await startOperatorProcess(`rn-specon-kill-${operators.length}`, kns, SPECON_FLAGS);
        operators.push(op);
        return op;
      };
      const first = await start();
      const pods = await followPods(kns, 'slow');
      stops.push(pods.stop);
      let killed: { last: MigrationLast; at: string } | undefined;
      stops.push(
        await onFirstMoving(kns, 'slow', (last) => {
          void first.kill('SIGKILL');
          killed = { last, at: at() };
        }),
      );

      // As in the test above; fast runs until the new operator's cooldown refusal is seen, then is deleted.
      await setUnschedulable(node1, true);
      let before: V1Pod | undefined;
      try {
        await createTFJob(kns, slowJob());
        await eventually(async () => speconStatusOf(await getTFJob(kns, 'slow')).progress?.step !== undefined, {
          what: "slow's first progress in its status",
          timeoutMs: 180_000,
          intervalMs: 1_000,
        });
        await createTFJob(kns, fastJob(150_000));
        const placed = await eventually(
          async () => {
            const all = [...(await livePods(kns, 'slow')), ...(await livePods(kns, 'fast'))];
            return all.length === 4 && all.every((p) => (p.spec?.nodeName ?? '') !== '') ? all : false;
          },
          { what: 'the four pods of slow and fast placed', timeoutMs: 120_000, intervalMs: 500 },
        );
        expect(placed.map((p) => p.spec?.nodeName)).toEqual(placed.map(() => node0));
        before = placed.find((p) => p.metadata?.name === 'slow-worker-1');
      } finally {
        await setUnschedulable(node1, false);
      }

      const kill = await eventually(async () => orSay(killed ?? false, async () => `${await speconSnapshot(kns)}\n${first.tail()}`), {
        what: "slow's move Moving (the kill)",
        timeoutMs: 300_000,
        intervalMs: 1_000,
      });
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(kill.last).toMatchObject({ pod: 'slow-worker-1', from: node0, to: node1 });
      const atKill = (await coreApi().listNamespacedPod({ namespace: kns, labelSelector: `${LABEL_JOB_NAME}=slow` })).items.map(
        (p) => `${p.metadata?.name ?? ''}@${p.spec?.nodeName ?? '-'}${p.metadata?.deletionTimestamp == null ? '' : '(terminating)'}`,
      );
      process.stderr.write(
        `[specon-kill] operator SIGKILLed at ${kill.at}, Moving ${JSON.stringify(kill.last)}; slow's pods ${atKill.join(',')}\n`,
      );
      const next = await start();

      // The new operator settles the move it did not start: Migrated, on the target.
      const migration = await eventually(
        async () => {
          const m = speconStatusOf(await getTFJob(kns, 'slow')).migration;
          const settled = m?.last?.state === 'Migrated' || m?.last?.state === 'TargetLost';
          return orSay(settled ? m : false, async () => `${await speconSnapshot(kns)}\n${next.tail()}`);
        },
        { what: 'status.migration of slow settled', timeoutMs: 180_000, intervalMs: 1_000 },
      );
      expect(migration).toMatchObject({
        migrations: 1,
        last: { pod: 'slow-worker-1', from: node0, to: node1, time: kill.last.time, state: 'Migrated' },
      });
      expect(next.messages().some((m) => m.msg === 'Settling a move a previous operator started')).toBe(true);
      const replacement = await eventually(
        async () => {
          const p = await coreApi().readNamespacedPod({ name: 'slow-worker-1', namespace: kns });
          return p.metadata?.uid !== before?.metadata?.uid && p.status?.phase === 'Running' ? p : false;
        },
        { what: 'the replacement of slow-worker-1 running', timeoutMs: 120_000, intervalMs: 500 },
      );
      expect(replacement.spec?.nodeName).toBe(node1);
      expect(tfConfigOf(replacement)).toBeDefined();
      expect(tfConfigOf(replacement)).toBe(tfConfigOf(before));
      expect(await waitForServicesMatchingPods(kns, 'slow')).toEqual(['slow-ps-0', 'slow-worker-0', 'slow-worker-1']);

      // realnode-0 stays contended (fast's 2 cores), slow Completing: the new operator refuses to move
      // slow again, naming the move its predecessor made (its memory began empty).
      const cooldown = `Not moved off ${node0}: in its cooldown: moved at ${kill.last.time} (cooldown 600s)`;
      await eventually(
        async () => {
          const said = next
            .messages()
            .some((m) => m.msg === 'Not migrating' && `Not moved off ${String(m['node'])}: ${String(m['why'])}` === cooldown);
          return orSay(said, async () => `${await speconSnapshot(kns)}\n${next.tail()}`);
        },
        { what: "the new operator's cooldown refusal", timeoutMs: 180_000, intervalMs: 2_000 },
      );
      expect((await eventLines(kns, 'slow')).filter((l) => l.startsWith('WorkerMigrationRefused: '))).toContain(
        `WorkerMigrationRefused: ${cooldown}`,
      );
      const refusedAt = at();
      await deleteTFJob(kns, 'fast');

      const slow = await waitForCondition(kns, 'slow', 'Succeeded', { timeoutMs: 300_000 });
      await eventually(
        async () =>
          (await podsAndServices(kns, 'fast')).pods.length === 0 &&
          (await getTFJob(kns, 'fast').then(
            () => false,
            () => true,
          )),
        { what: 'fast and its pods gone', timeoutMs: 120_000, intervalMs: 1_000 },
      );
      expect(doneStep(await podLog(kns, 'slow-worker-0'))).toBeGreaterThanOrEqual(SLOW_STEPS);
      expect(slow.status?.replicaStatuses?.Worker?.failed).toBeUndefined();
      expect((slow.status?.conditions ?? []).map((c) => c.type)).not.toContain('Restarting');
      // One move, said once each; the worker re-created once (two UIDs under its name, no third pod name),
      // bound to realnode-0 then realnode-1 only.
      const events = await eventLines(kns, 'slow');
      const said = (reason: string) => events.filter((l) => l.startsWith(`${reason}: `)).length;
      expect([said('WorkerMigrating'), said('WorkerMigrated'), said('MigrationTargetLost')]).toEqual([1, 1, 0]);
      expect([...pods.uids.keys()].sort()).toEqual(['slow-ps-0', 'slow-worker-0', 'slow-worker-1']);
      expect(pods.uids.get('slow-worker-1')?.size).toBe(2);
      expect([...(pods.boundOn.get('slow-worker-1') ?? [])].sort()).toEqual([node0, node1].sort());
      expect(next.running, next.tail()).toBe(true);
      const report = await monitor!.finish({ orphanGraceMs: 120_000 });
      expect(report.violations).toEqual([]);
      expect(report.gaps).toBe(0);
      expect(report.deletions.byReason['pod:migration']).toBe(1);
      process.stderr.write(
        `[specon-kill] killed at ${kill.at}; Migrated on ${node1}; cooldown refusal by the new operator at ${refusedAt}; ` +
          `slow Succeeded +${Math.round((Date.parse(slow.status?.completionTime ?? '') - started) / 1000)}s; test body ${at()}\n`,
      );
    });
  });
});

/** `value` unless it is false; then an error saying what was seen (eventually's message once it times out). */
async function orSay<T>(value: T | false, seen: () => Promise<string>): Promise<T> {
  if (value === false) throw new Error(`not yet; seen:\n  ${await seen()}`);
  return value;
}

async function setUnschedulable(node: string, unschedulable: boolean): Promise<void> {
  await coreApi().patchNode({ name: node, body: { spec: { unschedulable } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}
