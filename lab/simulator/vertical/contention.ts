// How a node's CPU is shared among its running containers (the simulator's model of the kernel's CFS,
// docs/simulation-results.md §9): each container is weighted by its CPU request (cpu.shares follow
// requests), can use no more than min(its limit (cfs quota), its demand (what it would burn
// unconstrained)), and what one container leaves is shared again among the others by weight
// (work-conserving): weighted max-min fairness. Pure and deterministic.

/** One running container as the node's scheduler sees it. Millicores throughout. */
export interface CpuClaim {
  readonly id: string;
  readonly requestMillis: number;
  readonly limitMillis: number;
  readonly demandMillis: number;
}

/** CPU each container gets (millicores), by id. Never above its cap; the sum never above capacity. */
export function shareNodeCpu(capacityMillis: number, claims: readonly CpuClaim[]): Map<string, number> {
  const got = new Map<string, number>();
  let active = claims.map((c) => ({
    id: c.id,
    weight: Math.max(1, c.requestMillis),
    cap: Math.max(0, Math.min(c.limitMillis, c.demandMillis)),
  }));
  let left = Math.max(0, capacityMillis);
  // Each pass settles the containers whose cap is below their weighted share; at most one pass per container.
  while (active.length > 0) {
    const weights = active.reduce((a, c) => a + c.weight, 0);
    const capped = active.filter((c) => c.cap <= (left * c.weight) / weights);
    if (capped.length === 0) {
      for (const c of active) got.set(c.id, (left * c.weight) / weights);
      break;
    }
    for (const c of capped) {
      got.set(c.id, c.cap);
      left -= c.cap;
    }
    active = active.filter((c) => !capped.includes(c));
  }
  return got;
}

/**
 * A job's speed as a share of its unconstrained rate: its slowest running container's CPU over its
 * demand (a synchronous step waits for every worker, a PS starved of CPU slows every worker).
 * Linear in CPU: a TensorFlow step on CPU is compute-bound; the linear model is an assumption.
 */
export function cpuSpeedFactor(containers: readonly { readonly gotMillis: number; readonly demandMillis: number }[]): number {
  let factor = 1;
  for (const c of containers) if (c.demandMillis > 0) factor = Math.min(factor, c.gotMillis / c.demandMillis);
  return Math.max(0, factor);
}

type Share = { readonly gotMillis: number; readonly demandMillis: number };

/**
 * The same for asynchronous PS training, whose workers add up: the mean of the workers' shares (each
 * worker's steps count on their own; the placement's rate is already the sum of its workers), capped
 * by the slowest PS (every worker's push waits for it).
 */
export function asyncCpuSpeedFactor(ps: readonly Share[], workers: readonly Share[]): number {
  const own = workers.map((w) => (w.demandMillis > 0 ? Math.min(1, w.gotMillis / w.demandMillis) : 1));
  const mean = own.length === 0 ? 1 : own.reduce((a, x) => a + x, 0) / own.length;
  return Math.max(0, Math.min(mean, cpuSpeedFactor(ps)));
}
