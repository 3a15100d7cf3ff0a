// The scenario file format (scenarios/*.yaml), validated with zod so a typo is reported with the
// field it is in instead of surfacing as NaN deep inside a run.
import { z } from 'zod';

const QUANTITY_PATTERN = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|Ki|Mi|Gi|Ti|Pi)?$/;

const quantity = z.union([
  z.number().nonnegative(),
  z.string().regex(QUANTITY_PATTERN, 'expected a Kubernetes quantity such as "10", "500m" or "32Gi"'),
]);

/** Resource name → quantity, e.g. `{ cpu: "2", memory: 4Gi, nvidia.com/gpu: 1 }`. */
const resourceList = z.record(z.string().min(1), quantity);

const cluster = z.strictObject({
  /** Number of identical worker nodes, named node-0 … node-(n−1): the main pool. */
  nodes: z.int().positive(),
  allocatable: resourceList,
  /**
   * Further nodes of other shapes, named `<name>-0` … (e.g. CPU-only nodes beside GPU nodes). The
   * lower bounds' ideal runtimes are computed on the main pool.
   */
  extraPools: z
    .array(
      z.strictObject({
        name: z
          .string()
          .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, 'expected a DNS label such as "cpu"')
          .refine((n) => n !== 'node', {
            message: '"node" is the main pool\'s prefix',
          }),
        nodes: z.int().positive(),
        allocatable: resourceList,
      }),
    )
    .default([]),
});

/** `[low, high]`, both positive. */
const range = z
  .tuple([z.number().positive(), z.number().positive()])
  .refine(([lo, hi]) => lo <= hi, { message: 'the first value must not exceed the second' });

const common = {
  name: z.string().min(1),
  description: z.string().optional(),
  cluster,
  /** Seconds from a replica being bound until it contributes (container start, graph build, data load). */
  startupSeconds: z.number().nonnegative(),
  /** Period of the scheduling tick that drives starvation aging and cool-downs. */
  tickSeconds: z.number().positive(),
  /** Horizon = horizonFactor × makespan lower bound (docs/simulation-results.md §1: 4). */
  horizonFactor: z.number().min(1).default(4),
  /** Each job's per-worker rate is scaled by 1 ± rateJitter (uniform, from --seed); 0 = none. */
  rateJitter: z.number().min(0).max(0.5).default(0),
  /**
   * Jobs declare their scaling curve (rate with 1..max workers on the fewest nodes) in the spec the
   * core sees. Only `ours` reads it (scheduling.md §6 knee); false is the ablation without curves.
   */
  declareScalingCurves: z.boolean().default(false),
  /**
   * Jobs resume from their own checkpoints, so a policy may suspend a whole job and admit it again
   * later (the TFJob annotation `tfjob-operator.kubeflow.org/suspendable: "true"`); the restart pays
   * `startupSeconds` again.
   */
  suspendable: z.boolean().default(false),
  /** Performance targets (DQoES) some jobs state; absent = no job has one. See targets.ts. */
  targets: z
    .strictObject({
      /** Share of jobs that state a target, picked with the run's seed. */
      fraction: z.number().gt(0).max(1),
      /** Which kind each targeted job states; `mixed` alternates by draw. */
      kind: z.enum(['throughput', 'deadline', 'mixed']),
      /** A throughput target is this × the job's rate at its maximum workers on the fewest nodes (uniform in the range). */
      throughputFactor: range.default([0.3, 0.8]),
      /** A deadline is submission + this × the job's ideal runtime (uniform in the range). */
      deadlineFactor: range.default([1.5, 3]),
      /** α, as the TFJob field `spec.qoe.tolerance`. */
      tolerance: z.number().gt(0).lt(1).default(0.1),
      /** β, as the TFJob field `spec.qoe.adjustStep`. */
      adjustStep: z.number().gt(0).max(1).default(0.1),
    })
    .optional(),
  /**
   * What jobs declare about their own length (plans.ts): `none` (default), `perfect` (their true
   * work) or `realistic` (a share `undeclared` declares nothing; a share `earlyStop` of the others
   * stops at a uniform point within `stopAt` of its plan, so the plan overstates its work).
   */
  declaredPlans: z
    .strictObject({
      model: z.enum(['none', 'perfect', 'realistic']),
      undeclared: z.number().min(0).max(1).default(0.3),
      earlyStop: z.number().min(0).max(1).default(0.4),
      stopAt: range.default([0.4, 0.9]),
    })
    .optional(),
  /**
   * Who submits each job (teams.ts): the first rule that matches a job (submission time within
   * [fromSeconds, toSeconds), and position i in submission order with i mod every[1] = every[0])
   * names its team. Absent: no teams.
   */
  teams: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'expected a DNS label such as "team-a"'),
        fromSeconds: z.number().nonnegative().default(0),
        toSeconds: z.number().positive().optional(),
        every: z
          .tuple([z.int().nonnegative(), z.int().positive()])
          .refine(([k, n]) => k < n, { message: 'the first value must be below the second' })
          .default([0, 1]),
      }),
    )
    .min(1)
    .optional(),
  /**
   * Queues with quotas (quota.ts), one per team of the same name: a team's jobs are charged to it.
   * Absent: the single global queue.
   */
  queues: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        cohort: z.string().min(1).optional(),
        nominalQuota: resourceList,
        borrowingLimit: resourceList.optional(),
        lendingLimit: resourceList.optional(),
        weight: z.number().positive().default(1),
      }),
    )
    .min(1)
    .refine((qs) => new Set(qs.map((q) => q.name)).size === qs.length, { message: 'queue names must be unique' })
    .optional(),
};

export const KOD2_BATCH_SIZES = ['8', '16', '32', '64', '128'] as const;

/** One value per batch size of the paper (all five are required). */
const perBatch = <T extends z.ZodType>(value: T) => z.record(z.enum(KOD2_BATCH_SIZES), value);

const kod2Model = z.strictObject({
  name: z.string().min(1),
  epochs: z.number().positive(),
  worker: resourceList,
  ps: resourceList,
  workerImagesPerSecond: perBatch(z.number().positive()),
  remotePenalty: perBatch(z.number().min(0).lt(1)),
  psCapacityImagesPerSecond: perBatch(z.number().positive()),
});

const workerRange = z
  .strictObject({ min: z.int().positive(), max: z.int().positive() })
  .refine((w) => w.min <= w.max, { message: 'min must not exceed max', path: ['min'] });

export const kod2PaperScenario = z.strictObject({
  kind: z.literal('kod2-paper'),
  ...common,
  batchSize: z.union([z.literal(8), z.literal(16), z.literal(32), z.literal(64), z.literal(128)]),
  datasetImages: z.int().positive(),
  arrivals: z.strictObject({
    count: z.int().positive(),
    intervalSeconds: z.number().nonnegative(),
    firstSeconds: z.number().nonnegative().default(0),
  }),
  psPerJob: z.int().positive(),
  workers: workerRange,
  /** Submitted in this order, cycling. */
  models: z.array(kod2Model).min(1),
});

export const phillyScenario = z.strictObject({
  kind: z.literal('philly'),
  ...common,
  /** workload-N.csv, relative to the scenario file that names it. */
  workload: z.string().min(1),
  /** Folder holding <app>/placements.csv, scalability.csv, validation-<batch>.csv. */
  apps: z.string().min(1),
  ps: resourceList,
  worker: resourceList,
  /** quarter: ceil(max/4) (the benchmark's rule); one and max are the sensitivity runs. */
  minWorkers: z.enum(['quarter', 'one', 'max']),
  maxEpochs: z.record(z.string().min(1), z.int().positive()),
  /** Largest per-step local batch by app; larger local batches are gradient accumulation. */
  maxLocalBatch: z.record(z.string().min(1), z.int().positive()).default({}),
});

export const scenarioSchema = z.discriminatedUnion('kind', [kod2PaperScenario, phillyScenario]);

export type ScenarioDefinition = z.infer<typeof scenarioSchema>;
export type Kod2PaperScenario = z.infer<typeof kod2PaperScenario>;
export type PhillyScenario = z.infer<typeof phillyScenario>;
export type Kod2Model = z.infer<typeof kod2Model>;

/** Every issue as `field "a.b[2].c": message`, one per line. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.reduce<string>((acc, key) => {
        if (typeof key === 'number') return `${acc}[${key}]`;
        return acc === '' ? String(key) : `${acc}.${String(key)}`;
      }, '');
      return `  field "${path === '' ? '(top level)' : path}": ${issue.message}`;
    })
    .join('\n');
}
