// The snapshot and job detail the page reads, built on request from the caches.
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../runtime/store.ts';
import type { JobHistories } from './history.ts';
import { arr, num, obj, str, strMap } from './read.ts';
import { addResources, jobRow, type CachedPod } from './reduce.ts';
import type { Caches } from './sources.ts';
import type { Access, ClusterQueueView, JobDetail, LocalQueueView, NodeView, PodView, QueueHead, Snapshot } from './types.ts';

const FINISHED = new Set(['Succeeded', 'Failed']);

function byName<T extends { readonly name: string; readonly namespace?: string }>(a: T, b: T): number {
  return (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name);
}

function clusterQueueView(cq: KubernetesObject): ClusterQueueView {
  const spec = obj(cq, 'spec');
  const status = obj(cq, 'status');
  const active = arr(status['conditions'])
    .map((c) => obj(c))
    .find((c) => c['type'] === 'Active');
  const heads: QueueHead[] = arr(status['heads']).map((h) => {
    const o = obj(h);
    return {
      position: num(o['position']) ?? 0,
      job: `${str(o['namespace']) ?? ''}/${str(o['name']) ?? ''}`,
      reason: str(o['reason']) ?? '',
    };
  });
  return {
    name: cq.metadata?.name ?? '',
    cohort: str(spec['cohort']),
    quota: strMap(spec['nominalQuota']),
    usage: strMap(status['usage']),
    borrowed: strMap(status['borrowed']),
    pending: num(status['pendingJobs']) ?? 0,
    admitted: num(status['admittedJobs']) ?? 0,
    active: str(active?.['status']) ?? 'Unknown',
    heads,
  };
}

function localQueueView(lq: KubernetesObject): LocalQueueView {
  const status = obj(lq, 'status');
  return {
    namespace: lq.metadata?.namespace ?? '',
    name: lq.metadata?.name ?? '',
    clusterQueue: str(obj(lq, 'spec')['clusterQueue']) ?? '',
    pending: num(status['pendingJobs']) ?? 0,
    admitted: num(status['admittedJobs']) ?? 0,
  };
}

function nodeViews(caches: Caches, pods: readonly PodView[]): NodeView[] {
  const onNode = new Map<string, PodView[]>();
  for (const p of pods) if (p.node !== undefined) onNode.set(p.node, [...(onNode.get(p.node) ?? []), p]);
  return caches.nodes
    .list()
    .map((n) => {
      const here = (onNode.get(n.name) ?? []).sort(byName);
      const requested = here.reduce((sum, p) => addResources(sum, p.requests), { cpu: 0, memory: 0, gpu: 0 });
      return { name: n.name, ready: n.ready, unschedulable: n.unschedulable, allocatable: n.allocatable, requested, pods: here };
    })
    .sort(byName);
}

export function buildSnapshot(caches: Caches, access: Access, user: string, now: number): Snapshot {
  const pods = caches.pods
    .list()
    .map((p) => p.view)
    .filter((p) => !FINISHED.has(p.phase));
  const clusterQueues = caches.clusterqueues.list().map(clusterQueueView).sort(byName);
  const positions = new Map<string, number>();
  for (const cq of clusterQueues) for (const h of cq.heads) positions.set(h.job, h.position);
  return {
    generatedAt: new Date(now).toISOString(),
    user,
    access,
    nodes: nodeViews(caches, pods),
    unscheduled: pods.filter((p) => p.node === undefined).sort(byName),
    clusterQueues,
    localQueues: caches.localqueues.list().map(localQueueView).sort(byName),
    jobs: caches.tfjobs
      .list()
      .map((j) => jobRow(j, positions.get(objectKey(j))))
      .sort(byName),
  };
}

export function buildDetail(
  caches: Caches,
  histories: JobHistories,
  podsOf: (job: string) => CachedPod[],
  key: string,
): JobDetail | undefined {
  const job = caches.tfjobs.get(key);
  if (job === undefined) return undefined;
  const positions = caches.clusterqueues.list().flatMap((cq) => clusterQueueView(cq).heads);
  const pods = podsOf(key).sort((a, b) => byName(a.view, b.view));
  const tfConfig: Record<string, string> = {};
  for (const p of pods) if (p.tfConfig !== undefined) tfConfig[p.view.replicaType ?? p.view.name] = p.tfConfig;
  const events = caches.events
    .list()
    .filter((e) => e.job === key)
    .map((e) => e.view)
    .sort((a, b) => a.time.localeCompare(b.time));
  const { since, samples } = histories.samples(key);
  return {
    row: jobRow(job, positions.find((h) => h.job === key)?.position),
    samples,
    samplesSince: since,
    events,
    pods: pods.map((p) => p.view),
    tfConfig,
    status: (job as { status?: unknown }).status ?? null,
  };
}
