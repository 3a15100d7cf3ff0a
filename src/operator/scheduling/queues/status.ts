// The report stage of a scheduling pass, queues: each ClusterQueue's and LocalQueue's status (pending
// and admitted TFJobs, usage and borrowed amounts, the first waiting jobs in order) and metrics, from
// the pass's queue summaries. Statuses are written only when they changed; a failed write is retried by
// the next pass.

import { Gauge, type Registry } from 'prom-client';
import {
  CLUSTER_QUEUES,
  LOCAL_QUEUES,
  QUEUE_GROUP,
  QUEUE_VERSION,
  type ClusterQueue,
  type ClusterQueueStatus,
  type LocalQueue,
  type LocalQueueStatus,
  type QueueCondition,
  type QueueHead,
} from '../../../api/queues/types.ts';
import type { QueueSummary, Resources } from '../../../scheduler/index.ts';
import { jsonEqual } from '../../../reconciler/tfjob/json.ts';
import type { KubeClients } from '../../../runtime/kube-client.ts';
import type { Logger } from '../../../runtime/logger.ts';
import { objectKey, splitKey } from '../../../runtime/store.ts';
import type { QueueCaches } from './caches.ts';
import type { QueueDirectorySnapshot } from './directory.ts';

/** A canonical amount as a Kubernetes quantity: cpu from millicores, bytes as Gi/Mi when exact. */
export function quantityString(resource: string, amount: number): string {
  if (resource === 'cpu') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  for (const [suffix, f] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
  ] as const) {
    if ((resource === 'memory' || resource === 'ephemeral-storage') && amount !== 0 && amount % f === 0) return `${amount / f}${suffix}`;
  }
  return String(amount);
}

function quantities(r: Resources): Record<string, string> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, quantityString(k, v)]));
}

function condition(
  previous: readonly QueueCondition[] | undefined,
  next: Omit<QueueCondition, 'lastTransitionTime'>,
  now: number,
): QueueCondition {
  const old = previous?.find((c) => c.type === next.type);
  const same = old !== undefined && old.status === next.status;
  return { ...next, lastTransitionTime: same ? old.lastTransitionTime : new Date(now).toISOString() };
}

function heads(summary: QueueSummary | undefined, keep: (job: string) => boolean): QueueHead[] {
  return (summary?.heads ?? [])
    .filter((h) => keep(h.job))
    .map((h) => {
      const { namespace = '', name } = splitKey(h.job);
      return { namespace, name, position: h.position, reason: h.reason };
    });
}

export function clusterQueueStatus(
  cq: ClusterQueue,
  summary: QueueSummary | undefined,
  invalid: readonly string[] | undefined,
  now: number,
): ClusterQueueStatus {
  const active =
    invalid === undefined
      ? { type: 'Active', status: 'True' as const, reason: 'Ready', message: 'The operator admits TFJobs on this quota' }
      : { type: 'Active', status: 'False' as const, reason: 'InvalidSpec', message: invalid.join('; ') };
  return {
    pendingJobs: summary?.pending ?? 0,
    admittedJobs: summary?.admitted ?? 0,
    usage: quantities(summary?.usage ?? {}),
    borrowed: quantities(summary?.borrowed ?? {}),
    heads: heads(summary, () => true),
    conditions: [condition(cq.status?.conditions, active, now)],
  };
}

export function localQueueStatus(
  lq: LocalQueue,
  summary: QueueSummary | undefined,
  jobs: readonly { readonly key: string; readonly localQueue?: string; readonly running: boolean }[],
  cqProblem: string | undefined,
  now: number,
): LocalQueueStatus {
  const key = objectKey(lq);
  const mine = jobs.filter((j) => j.localQueue === key);
  const keys = new Set(mine.map((j) => j.key));
  const active =
    cqProblem === undefined
      ? { type: 'Active', status: 'True' as const, reason: 'Ready', message: `TFJobs use ClusterQueue ${lq.spec?.clusterQueue ?? ''}` }
      : { type: 'Active', status: 'False' as const, reason: 'ClusterQueueUnavailable', message: cqProblem };
  return {
    pendingJobs: mine.filter((j) => !j.running).length,
    admittedJobs: mine.filter((j) => j.running).length,
    heads: heads(summary, (job) => keys.has(job)),
    conditions: [condition(lq.status?.conditions, active, now)],
  };
}

/** Equal whatever the key order (the API server returns keys sorted). */
function sameStatus(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b);
}

export class QueueMetrics {
  readonly pending: Gauge<'cluster_queue'>;
  readonly admitted: Gauge<'cluster_queue'>;
  readonly usage: Gauge<'cluster_queue' | 'resource'>;
  readonly borrowed: Gauge<'cluster_queue' | 'resource'>;
  readonly nominal: Gauge<'cluster_queue' | 'resource'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const gauge = <L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> =>
      new Gauge({ name, help, labelNames, registers });
    this.pending = gauge('tfjob_operator_cluster_queue_pending_jobs', 'TFJobs waiting in each ClusterQueue', ['cluster_queue']);
    this.admitted = gauge('tfjob_operator_cluster_queue_admitted_jobs', "TFJobs running on each ClusterQueue's quota", ['cluster_queue']);
    this.usage = gauge(
      'tfjob_operator_cluster_queue_resource_usage',
      'What admitted TFJobs request, per ClusterQueue and resource (canonical units: cpu in millicores, memory in bytes)',
      ['cluster_queue', 'resource'],
    );
    this.borrowed = gauge(
      'tfjob_operator_cluster_queue_resource_borrowed',
      'Usage above the nominal quota, per ClusterQueue and resource',
      ['cluster_queue', 'resource'],
    );
    this.nominal = gauge('tfjob_operator_cluster_queue_nominal_quota', 'Nominal quota per ClusterQueue and resource', [
      'cluster_queue',
      'resource',
    ]);
  }

  set(summaries: readonly QueueSummary[], nominal: ReadonlyMap<string, Resources>): void {
    for (const g of [this.pending, this.admitted, this.usage, this.borrowed, this.nominal]) g.reset();
    for (const s of summaries) {
      this.pending.set({ cluster_queue: s.name }, s.pending);
      this.admitted.set({ cluster_queue: s.name }, s.admitted);
      for (const [r, v] of Object.entries(s.usage)) this.usage.set({ cluster_queue: s.name, resource: r }, v);
      for (const [r, v] of Object.entries(s.borrowed)) this.borrowed.set({ cluster_queue: s.name, resource: r }, v);
      for (const [r, v] of Object.entries(nominal.get(s.name) ?? {})) this.nominal.set({ cluster_queue: s.name, resource: r }, v);
    }
  }
}

export class QueueStatusWriter {
  readonly #clients: KubeClients;
  readonly #caches: QueueCaches;
  readonly #metrics: QueueMetrics;
  readonly #log: Logger;
  /** --namespace: an operator that manages some namespaces writes only their LocalQueues and the ClusterQueues they use. */
  readonly #namespaces: ReadonlySet<string>;

  /** False when RBAC denies `update clusterqueues/status` (checked once at start): only LocalQueues are written. */
  readonly #writeClusterQueues: boolean;

  constructor(deps: {
    clients: KubeClients;
    caches: QueueCaches;
    metrics: QueueMetrics;
    logger: Logger;
    namespaces: readonly string[];
    writeClusterQueueStatus?: boolean;
  }) {
    this.#namespaces = new Set(deps.namespaces);
    this.#writeClusterQueues = deps.writeClusterQueueStatus ?? true;
    this.#clients = deps.clients;
    this.#caches = deps.caches;
    this.#metrics = deps.metrics;
    this.#log = deps.logger.child({ component: 'queue-status' });
  }

  /** Writes every queue status that changed; never throws (a failed write is logged and retried next pass). */
  async publish(
    summaries: readonly QueueSummary[],
    directory: QueueDirectorySnapshot,
    jobs: readonly { readonly key: string; readonly localQueue?: string; readonly running: boolean }[],
    now: number,
  ): Promise<void> {
    const byName = new Map(summaries.map((s) => [s.name, s] as const));
    this.#metrics.set(summaries, new Map(directory.specs.map((s) => [s.name, s.nominalQuota] as const)));
    const writes: Promise<void>[] = [];
    const mine = (ns: string | undefined): boolean => this.#namespaces.size === 0 || this.#namespaces.has(ns ?? '');
    const localQueues = this.#caches.localQueues.list().filter((lq) => mine(lq.metadata?.namespace));
    const used = new Set(localQueues.map((lq) => lq.spec?.clusterQueue ?? ''));
    for (const cq of this.#writeClusterQueues ? this.#caches.clusterQueues.store.list() : []) {
      const name = cq.metadata?.name ?? '';
      if (this.#namespaces.size > 0 && !used.has(name)) continue;
      const status = clusterQueueStatus(cq, byName.get(name), directory.invalid.get(name), now);
      if (!sameStatus(status, cq.status))
        writes.push(this.#put(`/apis/${QUEUE_GROUP}/${QUEUE_VERSION}/${CLUSTER_QUEUES}/${name}/status`, cq, status));
    }
    const known = new Set(directory.specs.map((s) => s.name));
    for (const lq of localQueues) {
      const cqName = lq.spec?.clusterQueue ?? '';
      const invalid = directory.invalid.get(cqName);
      const problem =
        invalid !== undefined
          ? `ClusterQueue ${cqName} is invalid: ${invalid.join('; ')}`
          : known.has(cqName)
            ? undefined
            : `ClusterQueue ${cqName} does not exist`;
      const status = localQueueStatus(lq, byName.get(cqName), jobs, problem, now);
      if (!sameStatus(status, lq.status)) {
        const path = `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}/namespaces/${lq.metadata?.namespace ?? ''}/${LOCAL_QUEUES}/${lq.metadata?.name ?? ''}/status`;
        writes.push(this.#put(path, lq, status));
      }
    }
    await Promise.all(writes);
  }

  async #put(path: string, obj: ClusterQueue | LocalQueue, status: ClusterQueueStatus | LocalQueueStatus): Promise<void> {
    try {
      await this.#clients.request('PUT', path, { ...obj, status });
    } catch (err) {
      // 409: our cached copy was stale; 404: deleted meanwhile. The next pass writes again.
      this.#log.info({ err, path }, 'Queue status not written; retried next pass');
    }
  }
}
