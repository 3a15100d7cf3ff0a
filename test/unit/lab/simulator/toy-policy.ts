// A throwaway policy for testing the simulator without the real core: strict FIFO, each job
// admitted whole at the largest worker count (max down to min) that first-fit packs onto the nodes,
// PS first. No preemption, no scaling. Small enough to reason about by hand.
import type { ClusterSnapshot, Plan, ReplicaInstance, Resources } from '../../../../src/scheduler/types.ts';
import { addResources, fitsIn } from '../../../../lab/workloads/resources.ts';

function freeByNode(snapshot: ClusterSnapshot): Map<string, Resources> {
  const free = new Map(snapshot.nodes.map((n) => [n.name, n.allocatable]));
  for (const job of snapshot.jobs) {
    for (const r of job.replicas) {
      if (r.node === undefined) continue;
      const requests = r.type === 'PS' ? job.spec.fixed[0]!.requests : job.spec.workers!.requests;
      free.set(r.node, addResources(free.get(r.node)!, requests, -1));
    }
  }
  return free;
}

function firstFit(free: Map<string, Resources>, requests: Resources): string | undefined {
  for (const [node, available] of free) {
    if (fitsIn(requests, available)) {
      free.set(node, addResources(available, requests, -1));
      return node;
    }
  }
  return undefined;
}

export function toyFifoPass(snapshot: ClusterSnapshot): Plan {
  const free = freeByNode(snapshot);
  const admit: { job: string; replicas: ReplicaInstance[] }[] = [];
  const waiting = snapshot.jobs
    .filter((j) => j.phase === 'waiting')
    .sort((a, b) => a.spec.submittedAt - b.spec.submittedAt || a.spec.key.localeCompare(b.spec.key));
  for (const job of waiting) {
    const ps = job.spec.fixed[0]!;
    const workers = job.spec.workers!;
    let placed: ReplicaInstance[] | undefined;
    for (let count = workers.max; count >= workers.min && placed === undefined; count--) {
      const trial = new Map(free);
      const replicas: ReplicaInstance[] = [];
      const psNode = firstFit(trial, ps.requests);
      if (psNode === undefined) break;
      replicas.push({ type: 'PS', index: 0, node: psNode });
      for (let i = 0; i < count; i++) {
        const node = firstFit(trial, workers.requests);
        if (node === undefined) break;
        replicas.push({ type: 'Worker', index: i, node });
      }
      if (replicas.length === count + 1) {
        placed = replicas;
        for (const [node, available] of trial) free.set(node, available);
      }
    }
    if (placed === undefined) break; // strict FIFO: nobody overtakes the head of the queue
    admit.push({ job: job.spec.key, replicas: placed });
  }
  return { suspend: [], admit, scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };
}
