// TF_CONFIG, byte for byte as tf-operator writes it (TensorFlow parses it, and users' scripts often
// print or parse it too). Three forms:
// - normal: the whole cluster, every type under its lowercase name, plus `"environment":"cloud"`;
// - sparse (tf-operator's `enableDynamicWorker` without an elastic policy): a worker sees only itself
//   and the PS list;
// - elastic (ours, docs/elastic-contract.md): the normal form with the worker list made of every
//   worker slot 0..max-1, present or not, for every replica. A PS must know the address of any worker
//   that may send it gradients, a chief/coordinator must see itself and the PS; listing every slot
//   gives all of them one TF_CONFIG that scaling never changes. Measured with real TensorFlow.

import { DEFAULT_CONTAINER_NAME, DEFAULT_PORT, DEFAULT_PORT_NAME } from '../../api/v1/constants.ts';
import type { DefaultedReplicaSpec } from '../../api/v1/defaults.ts';
import { REPLICA_TYPES, REPLICA_TYPE_PS, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import { goJsonMap, goJsonString, goJsonStringArray } from './json.ts';
import { replicaName } from './identity.ts';

export interface ClusterLayout {
  readonly jobName: string;
  readonly namespace: string;
  /** Canonical replica type → defaulted spec. */
  readonly replicaSpecs: Readonly<Record<string, DefaultedReplicaSpec>>;
  /** The operator's `CUSTOM_CLUSTER_DOMAIN`, appended after `.svc` when non-empty. */
  readonly clusterDomain?: string;
}

/**
 * tf-operator's `isDistributed`: the replicas of all five types add up to something other than 1
 * (a lone worker runs without TF_CONFIG). `workerCountOverride` lets an elastic job count its
 * maximum, so that it is distributed whenever it can grow.
 */
export function isDistributed(replicaSpecs: Readonly<Record<string, DefaultedReplicaSpec>>, workerCountOverride?: number): boolean {
  let count = 0;
  for (const type of REPLICA_TYPES) {
    const spec = replicaSpecs[type];
    if (!spec) continue;
    count += type === REPLICA_TYPE_WORKER && workerCountOverride !== undefined ? workerCountOverride : spec.replicas;
  }
  return count !== 1;
}

/** The `tfjob-port` containerPort of the replica's `tensorflow` container, else 2222 (`GetPortFromTFJob`). */
export function replicaPort(spec: DefaultedReplicaSpec | undefined): number {
  const container = spec?.template.spec?.containers.find((c) => c.name === DEFAULT_CONTAINER_NAME);
  const port = container?.ports?.find((p) => p.name === DEFAULT_PORT_NAME);
  return port?.containerPort ?? DEFAULT_PORT;
}

/** `<job>-<type>-<i>.<ns>.svc[.<domain>]:<port>` — the headless service of that replica. */
export function replicaAddress(layout: ClusterLayout, replicaType: string, index: number): string {
  const domain = layout.clusterDomain ? `.${layout.clusterDomain}` : '';
  const port = replicaPort(layout.replicaSpecs[replicaType]);
  return `${replicaName(layout.jobName, replicaType, index)}.${layout.namespace}.svc${domain}:${port}`;
}

/**
 * Lowercase type → addresses of replicas 0..replicas-1, for every type in the spec. `workerSlots`
 * replaces `Worker.replicas` (an elastic job's worker slots).
 */
export function clusterSpec(layout: ClusterLayout, workerSlots?: number): Map<string, string[]> {
  const cluster = new Map<string, string[]>();
  for (const [type, spec] of Object.entries(layout.replicaSpecs)) {
    const count = type === REPLICA_TYPE_WORKER && workerSlots !== undefined ? workerSlots : spec.replicas;
    cluster.set(
      type.toLowerCase(),
      Array.from({ length: Math.max(0, count) }, (_, i) => replicaAddress(layout, type, i)),
    );
  }
  return cluster;
}

function taskJson(replicaType: string, index: number): string {
  return `{"type":${goJsonString(replicaType.toLowerCase())},"index":${index}}`;
}

/** The normal form: `{"cluster":{...},"task":{...},"environment":"cloud"}`. */
export function normalTfConfig(layout: ClusterLayout, replicaType: string, index: number, workerSlots?: number): string {
  const cluster = new Map([...clusterSpec(layout, workerSlots)].map(([k, v]) => [k, goJsonStringArray(v)]));
  return `{"cluster":${goJsonMap(cluster)},"task":${taskJson(replicaType, index)},"environment":"cloud"}`;
}

/**
 * The elastic form, for every replica type of an elastic job: the normal form with `"worker"` listing
 * every slot `0..workerSlots-1` (the job's elastic maximum, at most MAX_ELASTIC_WORKERS), whether or
 * not that worker runs now. Scaling in or out changes no replica's TF_CONFIG. Absent slots are
 * harmless to sessions that filter devices (`device_filters`, which Estimator and
 * ParameterServerStrategy set themselves); see docs/elastic-contract.md for what was measured.
 */
export function elasticTfConfig(layout: ClusterLayout, replicaType: string, index: number, workerSlots: number): string {
  return normalTfConfig(layout, replicaType, index, workerSlots);
}

/**
 * The sparse form (`SparseTFConfig`), for `enableDynamicWorker` jobs that are not elastic: worker i gets `{"worker":{"i":own address},"ps":[all PS]}` (`null`
 * without a PS spec), PS i gets `{"worker":{},"ps":[own address]}`, every other type
 * `{"worker":{},"ps":[]}`. No `environment` key. tf-operator's form, kept as it is: real TensorFlow
 * PS training fails with it (a PS told no workers cannot receive their gradients), which is why
 * elastic jobs get the elastic form instead.
 */
export function sparseTfConfig(layout: ClusterLayout, replicaType: string, index: number): string {
  let worker = '{}';
  let ps = '[]';
  if (replicaType === REPLICA_TYPE_PS) {
    ps = goJsonStringArray([replicaAddress(layout, REPLICA_TYPE_PS, index)]);
  } else if (replicaType === REPLICA_TYPE_WORKER) {
    worker = goJsonMap(new Map([[String(index), goJsonString(replicaAddress(layout, REPLICA_TYPE_WORKER, index))]]));
    // Only the PS addresses: building the whole cluster spec would make an address for every one of
    // Worker.replicas (which an elastic job may set to 2^31 - 1) in every worker's TF_CONFIG.
    const psSpec = layout.replicaSpecs[REPLICA_TYPE_PS];
    ps = goJsonStringArray(
      psSpec === undefined
        ? undefined
        : Array.from({ length: Math.max(0, psSpec.replicas) }, (_, i) => replicaAddress(layout, REPLICA_TYPE_PS, i)),
    );
  }
  return `{"cluster":{"worker":${worker},"ps":${ps}},"task":${taskJson(replicaType, index)}}`;
}
