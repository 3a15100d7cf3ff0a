// Pod creates that admission refused for a reason only an edit of the TFJob can lift (a template that
// sets `priority` beside a PriorityClass): the controller stops sending them until the job's
// generation changes, instead of retrying with back-off forever. Kept in memory: after a restart each
// such create is tried once more and refused once more, which is idempotent.
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_REPLICA_TYPE } from '../api/v1/constants.ts';
import { canonicalReplicaType } from '../api/v1/replica-types.ts';

interface Refused {
  /** `metadata.generation` of the job whose pods were refused: a spec change retries. */
  readonly generation: number;
  /** Replica types whose pod template is refused, with the API server's explained message. */
  readonly messages: ReadonlyMap<string, string>;
}

export function replicaTypeOf(pod: V1Pod): string {
  const label = pod.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? '';
  return canonicalReplicaType(label) ?? label;
}

export class PermanentRefusals {
  readonly #byJob = new Map<string, Refused>();

  /** The refusals that still hold for this generation of the job; older ones are forgotten. */
  current(key: string, generation: number): ReadonlyMap<string, string> {
    const refused = this.#byJob.get(key);
    if (refused === undefined) return new Map();
    if (refused.generation === generation) return refused.messages;
    this.#byJob.delete(key);
    return new Map();
  }

  record(key: string, generation: number, type: string, message: string): void {
    const messages = new Map(this.current(key, generation));
    messages.set(type, message);
    this.#byJob.set(key, { generation, messages });
  }

  forget(key: string): void {
    this.#byJob.delete(key);
  }

  /** Whether a create of this pod would only be refused again. */
  blocks(key: string, generation: number, pod: V1Pod): boolean {
    return this.current(key, generation).has(replicaTypeOf(pod));
  }
}
