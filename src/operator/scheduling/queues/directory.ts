// Which queue a TFJob is charged to, from the ClusterQueue and LocalQueue caches (docs/queues.md):
//
//   label tfjob-operator.kubeflow.org/queue-name: <LocalQueue of the job's namespace>
//   else the namespace's LocalQueue named "default", if there is one
//   else none: the single global queue, as without queues.
//
// A job naming a LocalQueue that does not exist, or one whose ClusterQueue is missing or invalid,
// waits with that reason (nothing about it is lost; it is admitted once the queue exists). So does a
// job whose namespace the ClusterQueue's namespaceSelector does not select: a LocalQueue cannot
// spend another team's quota. Pure over its lookups.

import { DEFAULT_LOCAL_QUEUE, LABEL_QUEUE_NAME, type ClusterQueue, type LocalQueue } from '../../../api/queues/types.ts';
import { describeSelector, selectorMatches, type ParsedSelector } from '../../../api/queues/namespace-selector.ts';
import { parseClusterQueue } from '../../../api/queues/validate.ts';
import type { QueueSpec } from '../../../scheduler/index.ts';

export interface QueueLookups {
  readonly clusterQueues: () => readonly ClusterQueue[];
  readonly localQueue: (namespace: string, name: string) => LocalQueue | undefined;
  /**
   * A namespace's labels (undefined: not seen yet). Absent: the operator may not read namespaces,
   * so no ClusterQueue with a namespaceSelector admits anything.
   */
  readonly namespaceLabels?: (namespace: string) => Readonly<Record<string, string>> | undefined;
}

/** A job's queue for the core: `queue` (a ClusterQueue name) or why it cannot be admitted. */
export interface JobQueue {
  readonly queue?: string;
  readonly inadmissible?: string;
  /** `namespace/name` of the LocalQueue it came through, if any. */
  readonly localQueue?: string;
}

export interface QueueDirectorySnapshot {
  /** Valid ClusterQueues, for the core. */
  readonly specs: readonly QueueSpec[];
  /** Why each invalid ClusterQueue is not used (by name). */
  readonly invalid: ReadonlyMap<string, readonly string[]>;
  /**
   * `admitted`: the job already holds quota on its queue; the namespaceSelector is checked at
   * admission only (as in Kueue), so a later label or selector change does not orphan its usage.
   */
  resolve(namespace: string, labels: Readonly<Record<string, string>> | undefined, admitted?: boolean): JobQueue;
}

/**
 * The queues as one pass sees them. `enabled` false: the queue CRDs are not installed; a job that
 * names a queue then waits saying so (its label cannot be honoured), every other job is unaffected.
 */
export function queueDirectory(lookups: QueueLookups | undefined): QueueDirectorySnapshot {
  const specs: QueueSpec[] = [];
  const invalid = new Map<string, readonly string[]>();
  const selectors = new Map<string, ParsedSelector>();
  for (const cq of lookups?.clusterQueues() ?? []) {
    const parsed = parseClusterQueue(cq);
    if (!parsed.ok) invalid.set(cq.metadata?.name ?? '', parsed.errors);
    else {
      specs.push(parsed.spec);
      if (parsed.namespaceSelector !== undefined) selectors.set(parsed.spec.name, parsed.namespaceSelector);
    }
  }
  const known = new Set(specs.map((s) => s.name));
  return {
    specs,
    invalid,
    resolve(namespace, labels, admitted = false) {
      const named = labels?.[LABEL_QUEUE_NAME];
      if (lookups === undefined) {
        return named === undefined
          ? {}
          : {
              inadmissible: `label ${LABEL_QUEUE_NAME}=${named} names a queue, but the queue CRDs (LocalQueue, ClusterQueue) are not installed`,
            };
      }
      const lq = lookups.localQueue(namespace, named ?? DEFAULT_LOCAL_QUEUE);
      const localQueue = `${namespace}/${named ?? DEFAULT_LOCAL_QUEUE}`;
      if (lq === undefined) {
        return named === undefined
          ? {}
          : { inadmissible: `LocalQueue ${localQueue} (label ${LABEL_QUEUE_NAME}) does not exist`, localQueue };
      }
      const cq = lq.spec?.clusterQueue ?? '';
      const problems = invalid.get(cq);
      if (problems !== undefined)
        return { inadmissible: `ClusterQueue ${cq} of LocalQueue ${localQueue} is invalid: ${problems.join('; ')}`, localQueue };
      if (!known.has(cq)) return { inadmissible: `ClusterQueue ${cq} of LocalQueue ${localQueue} does not exist`, localQueue };
      const refused = admitted ? undefined : namespaceRefusal(cq, selectors.get(cq), namespace, lookups.namespaceLabels);
      return refused === undefined ? { queue: cq, localQueue } : { inadmissible: `${refused} (LocalQueue ${localQueue})`, localQueue };
    },
  };
}

/** Why ClusterQueue `cq` does not take jobs of `namespace`; undefined when it does. */
export function namespaceRefusal(
  cq: string,
  selector: ParsedSelector | undefined,
  namespace: string,
  labelsOf: QueueLookups['namespaceLabels'],
): string | undefined {
  if (selector === undefined) return undefined;
  const wants = `spec.namespaceSelector ${describeSelector(selector)}`;
  if (labelsOf === undefined)
    return `ClusterQueue ${cq} admits only namespaces matching ${wants}, and the operator may not read namespaces (grant list/watch on namespaces)`;
  const labels = labelsOf(namespace);
  if (labels === undefined)
    return `ClusterQueue ${cq} admits only namespaces matching ${wants}; the labels of namespace ${namespace} are not known yet`;
  if (selectorMatches(selector, labels)) return undefined;
  return `ClusterQueue ${cq} does not admit TFJobs of namespace ${namespace}: its labels do not match ${wants}`;
}
