// tf-operator's `SetDefaults_TFJob`, applied in memory at the start of every reconcile and never
// written back to the spec (the only persisted default is the CRD's `runPolicy.suspend: false`).

import type { Container as V1Container, PodTemplateSpec as V1PodTemplateSpec } from './k8s-types.ts';
import { DEFAULT_CONTAINER_NAME, DEFAULT_PORT, DEFAULT_PORT_NAME } from './constants.ts';
import { DEFAULT_CLEAN_POD_POLICY, DEFAULT_RESTART_POLICY, SUCCESS_POLICY_DEFAULT } from './policies.ts';
import { canonicalReplicaType } from './replica-types.ts';
import type { ElasticPolicy, JobStatus, ObjectMeta, QoeSpec, ReplicaSpec, RunPolicy, TFJob, TFJobSpec } from './schema.ts';

export interface DefaultedReplicaSpec {
  readonly replicas: number;
  readonly restartPolicy: string;
  readonly template: V1PodTemplateSpec;
}

export interface DefaultedRunPolicy extends RunPolicy {
  readonly cleanPodPolicy: string;
}

export interface DefaultedTFJobSpec {
  readonly runPolicy: DefaultedRunPolicy;
  readonly successPolicy: string;
  /** Keys in canonical case (`PS`, `Worker`, ...); keys that are no replica type are kept as written. */
  readonly tfReplicaSpecs: Readonly<Record<string, DefaultedReplicaSpec>>;
  readonly enableDynamicWorker: boolean;
  readonly elasticPolicy?: ElasticPolicy;
  readonly qoe?: QoeSpec;
}

/** Spelled out: `Omit` over the loose (index-signature) TFJob type would lose the known keys. */
export interface DefaultedTFJob {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: DefaultedTFJobSpec;
  readonly status?: JobStatus;
}

/**
 * Case-insensitive renaming of replica-type keys. When two keys name the same type (`worker` and
 * `Worker`, which validation rejects) the canonical spelling wins, else the first in sorted order,
 * so the result never depends on object key order (tf-operator's depended on Go map order).
 */
export function normaliseReplicaTypeKeys<T>(specs: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  const keys = Object.keys(specs).sort();
  for (const key of keys) {
    const canonical = canonicalReplicaType(key) ?? key;
    if (canonical in out && key !== canonical) continue;
    out[canonical] = specs[key] as T;
  }
  return out;
}

/** Index of the container the default port goes to: the one named `tensorflow`, else the first. */
export function defaultContainerIndex(containers: readonly V1Container[]): number {
  const index = containers.findIndex((c) => c.name === DEFAULT_CONTAINER_NAME);
  return index === -1 ? 0 : index;
}

function withDefaultPort(template: V1PodTemplateSpec): V1PodTemplateSpec {
  const containers = template.spec?.containers;
  if (!template.spec || !Array.isArray(containers) || containers.length === 0) return template;
  const index = defaultContainerIndex(containers);
  const container = containers[index];
  if (!container) return template;
  const ports = container.ports ?? [];
  if (ports.some((p) => p.name === DEFAULT_PORT_NAME)) return template;
  const patched: V1Container = { ...container, ports: [...ports, { name: DEFAULT_PORT_NAME, containerPort: DEFAULT_PORT }] };
  return { ...template, spec: { ...template.spec, containers: containers.map((c, i) => (i === index ? patched : c)) } };
}

function defaultReplicaSpec(spec: ReplicaSpec): DefaultedReplicaSpec {
  return {
    replicas: spec.replicas ?? 1,
    restartPolicy: spec.restartPolicy === undefined || spec.restartPolicy === '' ? DEFAULT_RESTART_POLICY : spec.restartPolicy,
    template: withDefaultPort(spec.template ?? {}),
  };
}

/**
 * Returns the defaulted job; the argument is not modified. The result shares what defaulting leaves
 * unchanged (metadata, status, most of each pod template) with the argument: the cache holds both
 * (TFJobEntry), deeply frozen, and pods are built from a deep copy of the template.
 */
export function applyDefaults(job: TFJob): DefaultedTFJob {
  const spec: TFJobSpec = job.spec ?? {};
  const replicaSpecs: Record<string, DefaultedReplicaSpec> = {};
  for (const [type, replicaSpec] of Object.entries(normaliseReplicaTypeKeys(spec.tfReplicaSpecs ?? {}))) {
    // A null replica spec (or a missing spec) is a validation error; skipping it keeps defaulting total.
    if (replicaSpec) replicaSpecs[type] = defaultReplicaSpec(replicaSpec);
  }
  const runPolicy: RunPolicy = spec.runPolicy ?? {};
  return {
    ...(job.apiVersion === undefined ? {} : { apiVersion: job.apiVersion }),
    ...(job.kind === undefined ? {} : { kind: job.kind }),
    metadata: job.metadata,
    ...(job.status === undefined ? {} : { status: job.status }),
    spec: {
      runPolicy: { ...runPolicy, cleanPodPolicy: runPolicy.cleanPodPolicy ?? DEFAULT_CLEAN_POD_POLICY },
      successPolicy: spec.successPolicy ?? SUCCESS_POLICY_DEFAULT,
      tfReplicaSpecs: replicaSpecs,
      enableDynamicWorker: spec.enableDynamicWorker ?? false,
      ...(spec.elasticPolicy ? { elasticPolicy: spec.elasticPolicy } : {}),
      ...(spec.qoe ? { qoe: spec.qoe } : {}),
    },
  };
}
