// TF_CONFIG, byte for byte as tf-operator writes it (TensorFlow parses it, and users' scripts often
// print or parse it too). Two forms:
// - normal: the whole cluster, every type under its lowercase name, plus `"environment":"cloud"`;
// - sparse (tf-operator's `enableDynamicWorker`, and always for our elastic jobs): a worker sees only
//   itself and the PS list, so workers can come and go without invalidating the others' TF_CONFIG.

import { DEFAULT_CONTAINER_NAME, DEFAULT_PORT, DEFAULT_PORT_NAME } from '../../api/v1/constants.ts';
import type { DefaultedReplicaSpec } from '../../api/v1/defaults.ts';
import { REPLICA_TYPES, REPLICA_TYPE_PS, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import { goJsonMap, goJsonString, goJsonStringArray } from './go-json.ts';
import { replicaName } from './names.ts';

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

/** Lowercase type → addresses of replicas 0..replicas-1, for every type in the spec. */
export function clusterSpec(layout: ClusterLayout): Map<string, string[]> {
  const cluster = new Map<string, string[]>();
  for (const [type, spec] of Object.entries(layout.replicaSpecs)) {
    cluster.set(
      type.toLowerCase(),
      Array.from({ length: Math.max(0, spec.replicas) }, (_, i) => replicaAddress(layout, type, i)),
    );
  }
  return cluster;
}

function taskJson(replicaType: string, index: number): string {
  return `{"type":${goJsonString(replicaType.toLowerCase())},"index":${index}}`;
}

/** The normal form: `{"cluster":{...},"task":{...},"environment":"cloud"}`. */
export function normalTfConfig(layout: ClusterLayout, replicaType: string, index: number): string {
  const cluster = new Map([...clusterSpec(layout)].map(([k, v]) => [k, goJsonStringArray(v)]));
  return `{"cluster":${goJsonMap(cluster)},"task":${taskJson(replicaType, index)},"environment":"cloud"}`;
}

/**
 * The sparse form (`SparseTFConfig`): worker i gets `{"worker":{"i":own address},"ps":[all PS]}` (`null`
 * without a PS spec), PS i gets `{"worker":{},"ps":[own address]}`, every other type
 * `{"worker":{},"ps":[]}`. No `environment` key. The worker's own address is computed for any index,
 * so elastic workers beyond `Worker.replicas` get a correct one.
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
