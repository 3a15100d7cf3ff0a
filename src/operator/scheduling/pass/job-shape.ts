// A TFJob's shape for the scheduler: its parsed spec, the controller's view of it and its replica
// groups, memoized per cached version of the job.
import type { V1Pod } from '@kubernetes/client-node';
import type { ParsedTFJobEntry, TFJobEntry } from '../../../api/v1/parse.ts';
import type { TFJob } from '../../../api/v1/schema.ts';
import { buildJobView, schedulersNamedByTemplates, type ElasticOptions, type ReplicaScheduler } from '../../../reconciler/tfjob/index.ts';

/** A job's parsed shape: its TFJob, the controller's view of it, and its replica groups. */
export interface JobShape {
  readonly raw: TFJob;
  readonly view: ReturnType<typeof buildJobView>;
  readonly groups: readonly {
    readonly type: string;
    readonly replicas: number;
    readonly template: { spec?: V1Pod['spec'] } | undefined;
  }[];
  /** The schedulers its templates name, when one is not kube-scheduler: not ours to place. */
  readonly named: readonly ReplicaScheduler[] | undefined;
}

export function jobView(entry: ParsedTFJobEntry, options: ElasticOptions): JobShape['view'] {
  return buildJobView(entry.job, entry.defaulted, {
    ...(options.defaultElastic ? { defaultElastic: options.defaultElastic } : {}),
    ...(options.workerLimit === undefined ? {} : { workerLimit: options.workerLimit }),
  });
}

/**
 * Job shapes, one per cached entry: the cache holds a new entry for each version of a job (parsed
 * once as it entered the cache), so a pass over thousands of unchanged jobs computes nothing again.
 * Invalid jobs have no shape (the reconciler fails them).
 */
export class JobShapes {
  readonly #memo = new WeakMap<TFJobEntry, JobShape | null>();

  get(entry: TFJobEntry, options: ElasticOptions): JobShape | undefined {
    let shape = this.#memo.get(entry);
    if (shape === undefined) {
      shape = computeShape(entry, options) ?? null;
      this.#memo.set(entry, shape);
    }
    return shape ?? undefined;
  }
}

function computeShape(entry: TFJobEntry, options: ElasticOptions): JobShape | undefined {
  if (!entry.ok || entry.errors.length > 0) return undefined;
  const view = jobView(entry, options);
  const workers = view.elastic?.max ?? view.replicas.Worker ?? 0;
  const groups = Object.entries(view.replicaSpecs).map(([type, spec]) => ({
    type,
    replicas: type === 'Worker' ? workers : (view.replicas[type] ?? spec.replicas),
    template: entry.defaulted.spec.tfReplicaSpecs[type]?.template,
  }));
  const named = schedulersNamedByTemplates(Object.fromEntries(groups.map((g) => [g.type, { template: g.template ?? {} }])));
  return { raw: entry.job, view, groups, named };
}
