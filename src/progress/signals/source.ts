// Which replica's log carries a job's progress: the annotation's choice, else the Chief (or Master)
// replica 0, else Worker 0. One log per job keeps reads to one request per job per period.

import { ANNOTATION_PROGRESS_REPLICA } from '../../api/v1/constants.ts';
import {
  REPLICA_TYPE_CHIEF,
  REPLICA_TYPE_MASTER,
  REPLICA_TYPE_WORKER,
  canonicalReplicaType,
  type ReplicaType,
} from '../../api/v1/replica-types.ts';

export type ProgressSource =
  | { readonly kind: 'replica'; readonly type: ReplicaType; readonly index: number }
  /** The job opted out (`none`), or has no replica that could report. */
  | { readonly kind: 'none' }
  /** The annotation cannot be followed; the message names it (for a condition or event). */
  | { readonly kind: 'invalid'; readonly message: string };

const VALUE = /^([A-Za-z]+)-(0|[1-9]\d{0,8})$/;

/**
 * @param replicas replica type → replica count of the job (defaulted spec; canonical type names)
 * @param annotation the job's `progress-replica` annotation, if any
 */
export function progressSource(replicas: ReadonlyMap<ReplicaType, number>, annotation: string | undefined): ProgressSource {
  if (annotation !== undefined) {
    if (annotation === 'none') return { kind: 'none' };
    const m = VALUE.exec(annotation);
    const type = m ? canonicalReplicaType(m[1]!) : undefined;
    if (!m || type === undefined) {
      return { kind: 'invalid', message: `${ANNOTATION_PROGRESS_REPLICA}: "${annotation}" is not <replica type>-<index> or none` };
    }
    const index = Number(m[2]);
    const count = replicas.get(type) ?? 0;
    if (index >= count) {
      return { kind: 'invalid', message: `${ANNOTATION_PROGRESS_REPLICA}: the job has no ${type} replica ${index} (it has ${count})` };
    }
    return { kind: 'replica', type, index };
  }
  const order: readonly ReplicaType[] = [REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, REPLICA_TYPE_WORKER];
  for (const type of order) {
    if ((replicas.get(type) ?? 0) > 0) return { kind: 'replica', type, index: 0 };
  }
  return { kind: 'none' };
}
