// Scenario jobs (lab/workloads) as TFJob manifests, the way a user would write them: one PS group and
// an elastic Worker group with the scenario's requests; the scaling curve, when the scenario declares
// one, as the annotation the `ours` policy reads.
import { ANNOTATION_SCALING_CURVE } from '../../src/api/v1/constants.ts';
import type { Resources } from '../../src/scheduler/types.ts';
import { fewestNodesRate, type ClusterShape, type WorkloadJob } from '../workloads/index.ts';

/** Canonical amounts (millicores, bytes) back to Kubernetes quantities. */
export function toQuantities(r: Resources): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(r)) {
    if (name === 'cpu') out.cpu = `${Math.ceil(v)}m`;
    else if (name === 'memory') out.memory = v % 2 ** 20 === 0 ? `${v / 2 ** 20}Mi` : `${Math.ceil(v)}`;
    else out[name] = String(Math.ceil(v));
  }
  return out;
}

export interface ManifestOptions {
  readonly namespace: string;
  readonly cluster: ClusterShape;
  readonly declareScalingCurve: boolean;
  /** Tolerations/selectors to add (tests put workloads on dedicated nodes). */
  readonly tolerations?: readonly Record<string, string>[];
  readonly image?: string;
}

/** DNS-1035 name of a scenario job. */
export function jobName(job: WorkloadJob): string {
  const base = job.name.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return (/^[a-z]/.test(base) ? base : `j${base}`).slice(0, 63).replace(/-+$/, '');
}

export function tfjobManifest(job: WorkloadJob, opts: ManifestOptions): Record<string, unknown> {
  const template = (requests: Resources) => ({
    spec: {
      containers: [
        { name: 'tensorflow', image: opts.image ?? 'example.invalid/tf-emulated:latest', resources: { requests: toQuantities(requests) } },
      ],
      ...(opts.tolerations ? { tolerations: opts.tolerations } : {}),
    },
  });
  const curve = opts.declareScalingCurve
    ? Array.from({ length: job.workers.max }, (_, i) => fewestNodesRate(job, i + 1, opts.cluster).toPrecision(4)).join(',')
    : undefined;
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: {
      name: jobName(job),
      namespace: opts.namespace,
      labels: { 'tfjob-operator.kubeflow.org/workload': job.label.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 63) },
      ...(curve === undefined ? {} : { annotations: { [ANNOTATION_SCALING_CURVE]: curve } }),
    },
    spec: {
      elasticPolicy: { minReplicas: job.workers.min, maxReplicas: job.workers.max },
      runPolicy: { cleanPodPolicy: 'None' },
      tfReplicaSpecs: {
        ...(job.ps.count > 0 ? { PS: { replicas: job.ps.count, restartPolicy: 'OnFailure', template: template(job.ps.requests) } } : {}),
        Worker: { replicas: job.workers.max, restartPolicy: 'OnFailure', template: template(job.workers.requests) },
      },
    },
  };
}
