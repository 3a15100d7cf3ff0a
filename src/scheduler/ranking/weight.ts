// Job weight (scheduling.md §2, §5.1) and the rank order every queue uses.
//
// The paper gives only ω_j = 1 / (1 + e^(−ω'_j)) and says ω'_j grows with the minimum worker count
// and shrinks with the CPU and memory the minimum configuration requests. Ours:
//
//   share_j = Σ_r  minRequest_j[r] / clusterAllocatable[r]        over every resource r the cluster
//                                                                  exposes except `pods`
//   ω'_j    = s · ( γ · ln(1 + m_j) − ln(share_j / share₀) )       m_j = minimum worker count
//   ω_j     = σ(ω'_j) = 1 / (1 + e^(−ω'_j))
//
// with s = `slope` (2.5), γ = `workerExponent` (0.5), share₀ = `referenceShare` (0.1).
//
// Why this shape, requirement by requirement:
// (a) monotone: ∂ω'/∂m_j = sγ/(1+m_j) > 0 at fixed resources; ∂ω'/∂share_j = −s/share_j < 0.
// (b) every exposed resource, each divided by its cluster total: cpu, memory, GPUs and any extended
//     resource are comparable (fractions of the cluster) and a scarce resource weighs more
//     (one GPU of 64 counts like 16 cpu of 1,024), which is the opportunity cost Tetris argues for.
// (c) not saturated: the log makes the weight depend on ratios of demand, so a job twice the size
//     of another is the same step apart whatever the absolute sizes; centring at share₀ and the
//     slope s spread the reference workloads over most of (0, 1) (weight.test.ts checks it). A plain
//     positive ω' would only ever give (0.5, 1).
// (d) no churn: ω_j depends only on the job's own spec and the cluster's allocatable, never on
//     which other jobs exist.
// (e) priority classes dominate: ranks compare the PriorityClass value first, and the weight only
//     orders jobs within a class (lexicographic, see `compareRank`); the weight itself stays a
//     pure function of the job so that it means the same in every class.
//
// All comparisons use the logit ω' rather than ω: σ rounds to exactly 1 beyond ω' ≈ 37, and jobs
// of a huge cluster (each a tiny share) would otherwise tie; the logit never loses their order.

import type { WeightConfig } from '../config.ts';
import { PODS } from '../model/resources.ts';
import type { JobSpec, NodeInfo, Resources } from '../types.ts';

/** Shares below this are treated as this (a job requesting nothing would get an infinite logit). */
const MIN_SHARE = 1e-12;

export function sigmoid(x: number): number {
  if (x === Number.POSITIVE_INFINITY) return 1;
  if (x === Number.NEGATIVE_INFINITY) return 0;
  return 1 / (1 + Math.exp(-x));
}

/** Total allocatable per resource over every node (ready or not, so that weights do not churn). */
export function clusterAllocatable(nodes: readonly NodeInfo[]): Resources {
  const total: Record<string, number> = {};
  for (const n of nodes) {
    // `for…in`: Object.keys' order without its array (see resource-vector.ts).
    for (const k in n.allocatable) total[k] = (total[k] ?? 0) + (n.allocatable[k] ?? 0);
  }
  return total;
}

export function minimumWorkers(spec: JobSpec): number {
  return spec.workers === undefined ? 0 : Math.max(0, spec.workers.min);
}

/** Requests of the minimum configuration: every fixed replica plus the minimum workers. */
export function minimumRequests(spec: JobSpec): Resources {
  const total: Record<string, number> = {};
  const add = (r: Resources, times: number): void => {
    for (const k in r) total[k] = (total[k] ?? 0) + (r[k] ?? 0) * times;
  };
  for (const g of spec.fixed) add(g.requests, g.count);
  if (spec.workers !== undefined) add(spec.workers.requests, minimumWorkers(spec));
  return total;
}

/** share_j: the job's minimum configuration as a sum of cluster fractions, one per resource. */
export function clusterShare(minRequests: Resources, clusterTotal: Resources): number {
  let share = 0;
  for (const k in minRequests) {
    if (k === PODS) continue;
    const cap = clusterTotal[k] ?? 0;
    // A resource the cluster does not have makes the job unplaceable; that is reported elsewhere
    // and must not turn the weight into a division by zero.
    if (cap > 0) share += (minRequests[k] ?? 0) / cap;
  }
  return share;
}

/** ω'_j, the heuristic logit (before any starvation promotion). */
export function baseLogit(minWorkers: number, share: number, cfg: WeightConfig): number {
  return cfg.slope * (cfg.workerExponent * Math.log1p(minWorkers) - Math.log(Math.max(share, MIN_SHARE) / cfg.referenceShare));
}

export interface JobWeight {
  readonly share: number;
  readonly logit: number;
  readonly weight: number;
}

export function jobWeight(spec: JobSpec, clusterTotal: Resources, cfg: WeightConfig): JobWeight {
  return jobWeightFrom(spec, minimumRequests(spec), clusterTotal, cfg);
}

/** `jobWeight` for a caller that already has `minimumRequests(spec)`. */
export function jobWeightFrom(spec: JobSpec, minRequests: Resources, clusterTotal: Resources, cfg: WeightConfig): JobWeight {
  const share = clusterShare(minRequests, clusterTotal);
  const logit = baseLogit(minimumWorkers(spec), share, cfg);
  return { share, logit, weight: sigmoid(logit) };
}

/**
 * Everything that orders two jobs. `logit` is +Infinity for a starving job (`starvation.ts`), so
 * starving jobs rank above every non-starving job of their class and, tying among themselves,
 * fall through to t_j: first come, first served.
 */
export interface RankKey {
  readonly key: string;
  readonly priority: number;
  /**
   * Attained-service queue (`demoteByAttainedService`): 0, or 1 once the job has held more than
   * the threshold; lower ranks higher, within a priority class and before the weight. Absent = 0.
   */
  readonly band?: number;
  readonly logit: number;
  readonly submittedAt: number;
}

/**
 * Priority class, attained-service band, then weight only: Algorithm 1 line 5 compares weights ("max ω over WQ ≥ max ω
 * over RQ"), so equal weights pass it whichever job came first. Negative when `a` ranks higher.
 */
export function comparePriorityAndWeight(a: RankKey, b: RankKey): number {
  if (a.priority !== b.priority) return a.priority > b.priority ? -1 : 1;
  const bandA = a.band ?? 0;
  const bandB = b.band ?? 0;
  if (bandA !== bandB) return bandA < bandB ? -1 : 1;
  if (a.logit !== b.logit) return a.logit > b.logit ? -1 : 1;
  return 0;
}

/**
 * The total order of jobs: priority class, weight, then earlier t_j (§5.8, Alg. 2 line 5), then
 * key. Negative when `a` ranks higher. A running job may be preempted for a waiting job only if it
 * ranks strictly lower, which is exactly "lower weight, or equal weight and later arrival".
 */
export function compareRank(a: RankKey, b: RankKey): number {
  const pw = comparePriorityAndWeight(a, b);
  if (pw !== 0) return pw;
  if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
