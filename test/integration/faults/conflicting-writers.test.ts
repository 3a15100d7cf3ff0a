// Faults from other writers during a run of dozens of jobs:
// - a user updating jobs' metadata, spec and status concurrently with the operator (its status
//   writes then hit 409 Conflict and must be retried on fresh data, never lost or looping);
// - pods deleted by hand (the operator replaces them);
// - a TFJob deleted while it is being scaled in (no orphan, nothing recreated for it);
// - a node deleted with workers on it (replaced elsewhere);
// - a node cordoned and tainted during the run (nothing new placed there), then restored.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useSharedClusterFixture } from '../../support/fault-scenario.ts';
import { isFinished, type TFJobLike } from '../../support/invariants.ts';
import { adminKubeConfig, clusterState } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { sumOf } from '../../support/prometheus.ts';
import { rng, scenarioSeed, type Rng } from '../../support/prng.ts';

const SEED = scenarioSeed(8007);
const JOBS = 30;
const GROUP = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs' };
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('fault: conflicting writers (users, hand deletions, node changes)', () => {
  const fx = useSharedClusterFixture('fault-writers', 'fwrite', { nodes: 4 });

  it(`keeps every promise while others write (seed ${SEED})`, async () => {
    const kc = adminKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const { namespace: ns, pool } = fx;
    const s = fx.scenario({ name: 'conflicting-writers', seed: SEED, jobs: JOBS });
    const r = rng(SEED);
    const operator = await OperatorChild.start('writers', clusterState().kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--scale-out-cooldown',
      '2s',
      ...pool.operatorFlags,
    ]);
    s.operators.push(operator);
    await operator.ready();
    await s.start();

    const jobs = async () => ((await custom.listNamespacedCustomObject({ ...GROUP, namespace: ns })) as { items: TFJobLike[] }).items;
    const running = async () =>
      (await jobs()).filter((j) => !isFinished(j) && (j.status?.conditions ?? []).some((c) => c.type === 'Running' && c.status === 'True'));
    const livePods = async (selector?: string): Promise<V1Pod[]> =>
      (await core.listNamespacedPod({ namespace: ns, ...(selector === undefined ? {} : { fieldSelector: selector }) })).items.filter(
        (p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase === 'Running',
      );

    // A user touching jobs all the time, concurrently with the operator.
    const user = { meddling: true };
    const meddler = (async () => {
      const m = rng(SEED ^ 0x77);
      for (let n = 0; user.meddling; n++) {
        await sleep(m.int(300, 1_200));
        try {
          const candidates = (await jobs()).filter((j) => !isFinished(j));
          if (candidates.length === 0) continue;
          const name = m.pick(candidates).metadata?.name ?? '';
          switch (m.int(0, 3)) {
            case 0:
              await custom.patchNamespacedCustomObject(
                { ...GROUP, namespace: ns, name, body: { metadata: { labels: { 'fault/touched': String(n) } } } },
                merge,
              );
              s.count('user-metadata-update');
              break;
            case 1:
              // A spec change that alters nothing the job does (a deadline a day away).
              await custom.patchNamespacedCustomObject(
                { ...GROUP, namespace: ns, name, body: { spec: { runPolicy: { activeDeadlineSeconds: 86_400 + n } } } },
                merge,
              );
              s.count('user-spec-update');
              break;
            case 2:
              await custom.patchNamespacedCustomObjectStatus(
                {
                  ...GROUP,
                  namespace: ns,
                  name,
                  body: { status: { lastReconcileTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } },
                },
                merge,
              );
              s.count('user-status-update');
              break;
            default: {
              const pods = await livePods();
              if (pods.length === 0) break;
              const pod = m.pick(pods).metadata?.name ?? '';
              s.monitor.allowDeletion('pod', pod);
              await core.deleteNamespacedPod({ name: pod, namespace: ns });
              s.count('pod-deleted-by-hand');
            }
          }
        } catch {
          // A job that finished or vanished meanwhile: fine.
        }
      }
    })();

    const at = async (lo: number, hi: number) => {
      await sleep(r.int(lo, hi));
    };
    // A job deleted while it scales in: its elastic maximum lowered to its minimum, then deleted at once.
    await at(8_000, 12_000);
    const scaling = pickElastic(r, await running());
    if (scaling !== undefined) {
      const name = scaling.metadata?.name ?? '';
      const min = (scaling.spec as { elasticPolicy?: { minReplicas?: number } }).elasticPolicy?.minReplicas ?? 1;
      await custom.patchNamespacedCustomObject(
        { ...GROUP, namespace: ns, name, body: { spec: { elasticPolicy: { maxReplicas: min } } } },
        merge,
      );
      await sleep(r.int(0, 300));
      await custom.deleteNamespacedCustomObject({ ...GROUP, namespace: ns, name });
      s.deletedJobs.add(name);
      s.count('job-deleted-mid-scale-in');
    }

    // A node with workers on it deleted.
    await at(3_000, 8_000);
    const byNode = new Map<string, number>();
    for (const p of await livePods())
      if (p.spec?.nodeName !== undefined) byNode.set(p.spec.nodeName, (byNode.get(p.spec.nodeName) ?? 0) + 1);
    const [lost] = [...byNode].filter(([n]) => pool.nodes.includes(n)).sort((a, b) => b[1] - a[1])[0] ?? [pool.nodes[0]!];
    s.monitor.allowNodeLoss(lost);
    await core.deleteNode({ name: lost });
    s.count('node-deleted');
    s.count('pods-on-deleted-node', byNode.get(lost) ?? 0);

    // Another node cordoned and tainted, restored 20 s later.
    await at(3_000, 8_000);
    const fenced = pool.nodes.find((n) => n !== lost)!;
    const node = await core.readNode({ name: fenced });
    const taints = node.spec?.taints ?? [];
    await core.patchNode(
      {
        name: fenced,
        body: { spec: { unschedulable: true, taints: [...taints, { key: 'fault/tainted', value: 'yes', effect: 'NoSchedule' }] } },
      },
      merge,
    );
    s.count('node-cordoned-and-tainted');
    await sleep(20_000);
    await core.patchNode({ name: fenced, body: { spec: { unschedulable: false, taints } } }, merge);

    await s.submitted();
    const report = await s.finish({ timeoutMs: 300_000 });
    user.meddling = false;
    await meddler;
    expect(operator.running, operator.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // Bounded memory: the operator's peak RSS over the run (restarts included).
    expect(report.memory.maxBytes).toBeLessThan(768 * 2 ** 20);
    expect(report.succeeded).toBe(JOBS - s.deletedJobs.size);
    expect(report.faults['node-deleted']).toBe(1);
    // The deleted job left nothing behind (no orphans is part of the report; it is gone entirely).
    for (const name of s.deletedJobs) expect((await jobs()).some((j) => j.metadata?.name === name)).toBe(false);
    // The user's writes made the operator's status writes conflict, and it recovered from each.
    const m = await operator.metrics();
    const conflicts = sumOf(m, 'rest_client_requests_total', { code: '409' });
    process.stderr.write(`[conflicting-writers] operator requests answered 409: ${conflicts}\n`);
    expect(conflicts).toBeGreaterThan(0);
  }, 600_000);
});

/** A running elastic job with more workers than its minimum, if any (else any running elastic job). */
function pickElastic(r: Rng, running: readonly TFJobLike[]): TFJobLike | undefined {
  const elastic = running.filter((j) => (j.spec as { elasticPolicy?: unknown }).elasticPolicy !== undefined);
  return elastic.length === 0 ? undefined : r.pick(elastic);
}
