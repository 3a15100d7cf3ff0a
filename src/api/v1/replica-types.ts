// TFJob replica types. Map keys of `spec.tfReplicaSpecs` are matched case-insensitively against these
// (tf-operator's defaulting renames `worker`/`WORKER` to `Worker`), and status keys use this spelling.

export const REPLICA_TYPE_PS = 'PS';
export const REPLICA_TYPE_WORKER = 'Worker';
export const REPLICA_TYPE_CHIEF = 'Chief';
export const REPLICA_TYPE_MASTER = 'Master';
export const REPLICA_TYPE_EVALUATOR = 'Evaluator';

export type ReplicaType =
  | typeof REPLICA_TYPE_PS
  | typeof REPLICA_TYPE_WORKER
  | typeof REPLICA_TYPE_CHIEF
  | typeof REPLICA_TYPE_MASTER
  | typeof REPLICA_TYPE_EVALUATOR;

/**
 * The order tf-operator's status decision walks the types in (`UpdateJobStatus`); we also use it for
 * every other per-type loop so that events and actions come out in a deterministic order.
 */
export const REPLICA_TYPES: readonly ReplicaType[] = [
  REPLICA_TYPE_CHIEF,
  REPLICA_TYPE_EVALUATOR,
  REPLICA_TYPE_MASTER,
  REPLICA_TYPE_PS,
  REPLICA_TYPE_WORKER,
];

const BY_LOWER: ReadonlyMap<string, ReplicaType> = new Map(REPLICA_TYPES.map((t) => [t.toLowerCase(), t]));

/** Canonical spelling of a replica-type key, or undefined for a key that is not a TFJob replica type. */
export function canonicalReplicaType(key: string): ReplicaType | undefined {
  return BY_LOWER.get(key.toLowerCase());
}

export function isChiefOrMaster(type: string): boolean {
  return type === REPLICA_TYPE_CHIEF || type === REPLICA_TYPE_MASTER;
}
