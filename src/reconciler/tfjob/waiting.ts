// What a job waiting in our queue has, to look as it does under tf-operator (which creates everything
// at once): its headless services, and a replicaStatuses entry per replica type (`{"Worker":{}}`).
// No pods: those come with admission, each with the node the scheduler chose.
import type { Service } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { ReplicaStatus } from '../../api/v1/schema.ts';
import type { JobView } from './job-view.ts';
import { ofReplicaType } from './pod-state.ts';
import { planServices } from './replica-plan.ts';
import { buildService } from './service-builder.ts';

/**
 * Services are created ahead of admission only up to this many per job: they cost nothing each, but
 * a job asking for more replicas than any cluster has must not turn into that many objects while it
 * waits (it gets them at admission, like any job).
 */
export const MAX_WAITING_SERVICES = 64;

export interface WaitingState {
  readonly services: Service[];
  readonly replicaStatuses: Record<string, ReplicaStatus>;
}

/**
 * The services a waiting job should have and its replica statuses. An elastic job gets services for
 * its minimum workers (how many more it gets is decided at admission); existing services are kept.
 */
export function waitingState(view: JobView, services: readonly Service[], stored: Readonly<Record<string, ReplicaStatus>>): WaitingState {
  const counts = view.types.map((type) => {
    const n = type === REPLICA_TYPE_WORKER && view.elastic !== undefined ? view.elastic.min : (view.replicas[type] ?? 0);
    return [type, n] as const;
  });
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  const out: Service[] = [];
  const replicaStatuses: Record<string, ReplicaStatus> = {};
  for (const [type, n] of counts) {
    replicaStatuses[type] = stored[type] ?? {};
    if (total > MAX_WAITING_SERVICES) continue;
    const spec = view.replicaSpecs[type];
    if (spec === undefined) continue;
    const wanted = new Set(Array.from({ length: n }, (_, i) => i));
    for (const index of planServices(ofReplicaType(services, type), wanted).create) out.push(buildService(view, type, index, spec));
  }
  return { services: out, replicaStatuses };
}
