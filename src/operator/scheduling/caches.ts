// What the scheduler needs beyond the operator's caches: the nodes it may place pods on and
// PriorityClasses (a job's priority comes only from classes the admin created). Every pod using
// capacity comes from the operator's one pod cache (operator/pod-cache.ts), which the TFJob
// controller reads too.
import { CoreV1Api, SchedulingV1Api, type KubeConfig, type V1Node, type V1PriorityClass } from '@kubernetes/client-node';
import { Informer, stripForCache, type InformerHandler } from '../../runtime/informer.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { RuntimeMetrics } from '../../runtime/metrics.ts';

export interface SchedulerCaches {
  readonly nodes: Informer<V1Node>;
  readonly priorityClasses: Informer<V1PriorityClass>;
}

export function createSchedulerCaches(deps: {
  kc: KubeConfig;
  clients: KubeClients;
  logger: Logger;
  metrics?: RuntimeMetrics;
}): SchedulerCaches {
  const core = deps.clients.api(CoreV1Api);
  const sched = deps.clients.api(SchedulingV1Api);
  const onWatchEvent = (informer: string) => (event: string) => deps.metrics?.informerEvents.inc({ informer, event });
  // Every node is watched, not only those the node selector picks: the scheduler must tell a node that
  // was deleted (its pods are lost) from one it merely does not place on.
  const nodes = new Informer<V1Node>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => core.listNode({ limit, _continue: continueToken }),
      watchPath: '/api/v1/nodes',
    },
    { name: 'nodes', logger: deps.logger, transform: stripForCache, onWatchEvent: onWatchEvent('nodes') },
  );
  const priorityClasses = new Informer<V1PriorityClass>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => sched.listPriorityClass({ limit, _continue: continueToken }),
      watchPath: '/apis/scheduling.k8s.io/v1/priorityclasses',
    },
    { name: 'priorityclasses', logger: deps.logger, transform: stripForCache, onWatchEvent: onWatchEvent('priorityclasses') },
  );
  return { nodes, priorityClasses };
}

export function startSchedulerCaches(c: SchedulerCaches): void {
  c.nodes.start();
  c.priorityClasses.start();
}

export async function waitForSchedulerCaches(c: SchedulerCaches): Promise<void> {
  await Promise.all([c.nodes.waitForSync(), c.priorityClasses.waitForSync()]);
}

export function stopSchedulerCaches(c: SchedulerCaches): void {
  c.nodes.stop();
  c.priorityClasses.stop();
}

export type { InformerHandler };

/** Parses `k=v,k2=v2` (the --node-selector flag) into a label matcher; empty matches every node. */
export function labelMatcher(selector: string): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const pairs = selector
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq), p.slice(eq + 1)] as const;
    });
  return (labels) => pairs.every(([k, v]) => labels?.[k] === v);
}
