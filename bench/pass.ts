// Benchmark (not a test), docs/benchmarks.md §2.1: time of one `schedule()` call of the
// scheduling core, per policy, on the seeded random clusters of bench/random-cluster.ts, printed as a
// table and written as versioned JSON with a chart, plus a sweep of the job count at a fixed node count:
//   nodes sweep: 100 / 1,000 / 5,000 nodes with 0.4 waiting and 0.2 running jobs per node
//                (5,000 nodes: 2,000 waiting, 1,000 running);
//   jobs sweep:  5,000 nodes with 500 / 2,000 / 8,000 waiting jobs (1,000 running).
// Scenarios `busy` (other tenants fill nodes to 80–95%, most waiting jobs do not fit), `burst`
// (a mostly idle cluster admits a burst) and `elastic` (the burst with declared scaling curves and no
// starving job: what `ours`' gain rules act on; not in the default list). Median and p99 over many
// runs, after warm-up runs.
//
//   node bench/pass.ts [--sizes 100,1000,5000] [--waiting 500,2000,8000] [--scenarios busy,burst]
//                      [--policies tf-operator,gang-fifo,kod2,ours] [--runs N] [--seed S] [--out DIR] [--rev HEAD[,REV2…]]
//
// The scheduling core and the random clusters are loaded from a snapshot of --rev (default HEAD;
// `worktree` = the checkout as is), so uncommitted work of others in the same checkout is not timed.
// Several revisions are timed in one process, run by run in turn (A B A B …): a slow minute of a
// shared machine then falls on all of them alike, which separate processes minutes apart do not get.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type * as SchedulerModule from '../src/scheduler/index.ts';
import type { ClusterSnapshot, Plan } from '../src/scheduler/types.ts';
import type * as SimPolicyModule from '../lab/simulator/policies/registry.ts';
import type { SimPolicyName as PolicyName } from '../lab/simulator/policies/registry.ts';
import { lineChart, type Series } from '../lab/simulator/svg.ts';
import type * as RandomClusterModule from './random-cluster.ts';
import type { ClusterSize, Scenario } from './random-cluster.ts';
import { cliArgs } from './lib/args.ts';
import { header, resultDir, writeJson, writeText } from './lib/results.ts';
import { snapshotSource, type SourceTree } from './lib/snapshot.ts';
import { percentile, round } from './lib/stats.ts';

const SCHEMA = 'scheduling-pass/v1';

interface Row {
  readonly sweep: 'nodes' | 'jobs';
  readonly scenario: Scenario;
  readonly nodes: number;
  readonly waiting: number;
  readonly running: number;
  readonly policy: PolicyName;
  /** The commit timed (full id), or `worktree`. */
  readonly revision: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly plan: { readonly admitted: number; readonly scaledIn: number; readonly scaledOut: number; readonly waiting: number };
}

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    sizes: { type: 'string', default: '100,1000,5000' },
    waiting: { type: 'string', default: '500,2000,8000' },
    'jobs-sweep-nodes': { type: 'string', default: '5000' },
    scenarios: { type: 'string', default: 'busy,burst' },
    policies: { type: 'string', default: 'tf-operator,gang-fifo,kod2,ours' },
    runs: { type: 'string', default: '' },
    seed: { type: 'string', default: '20261121' },
    out: { type: 'string' },
    rev: { type: 'string', default: 'HEAD' },
    // Queues with quotas (docs/queues.md): jobs spread round-robin over N ClusterQueues of one cohort,
    // each with 1/N of the cluster's cpu and memory as nominal quota. 0: no queues.
    queues: { type: 'string', default: '0' },
  },
});

interface Revision {
  readonly source: SourceTree;
  readonly scheduler: typeof SchedulerModule;
  /** Every policy the revision has: the simulator's registry, or the core's in revisions before it. */
  readonly policies: Pick<typeof SimPolicyModule, 'isSimPolicyName' | 'SIM_POLICY_NAMES' | 'schedule'>;
  readonly randomSnapshot: typeof RandomClusterModule.randomSnapshot;
}

async function loadRevision(rev: string): Promise<Revision> {
  const source = snapshotSource(rev, ['bench']);
  const scheduler = (await import(path.join(source.root, 'src', 'scheduler', 'index.ts'))) as typeof SchedulerModule;
  const registry = path.join(source.root, 'lab', 'simulator', 'policies', 'registry.ts');
  // Before the simulator's baselines left src/, the core's registry held every policy under the same names.
  const policies = existsSync(registry)
    ? ((await import(registry)) as typeof SimPolicyModule)
    : ({
        isSimPolicyName: scheduler.isPolicyName,
        SIM_POLICY_NAMES: scheduler.POLICY_NAMES,
        schedule: scheduler.schedule,
      } as unknown as Revision['policies']);
  const { randomSnapshot } = (await import(path.join(source.root, 'bench', 'random-cluster.ts'))) as typeof RandomClusterModule;
  return { source, scheduler, policies, randomSnapshot };
}

const revisions: Revision[] = [];
for (const rev of values.rev.split(',')) revisions.push(await loadRevision(rev));
const { isSimPolicyName, SIM_POLICY_NAMES } = revisions[0]!.policies;

const seed = Number(values.seed);
const policies = values.policies.split(',').map((p) => {
  if (!isSimPolicyName(p)) throw new Error(`unknown policy ${p}; one of ${SIM_POLICY_NAMES.join(', ')}`);
  return p;
});

function runsFor(nodes: number, waiting: number): number {
  if (values.runs !== '') return Number(values.runs);
  const work = nodes + waiting * 2;
  return work >= 10_000 ? 25 : work >= 1_500 ? 60 : 200;
}

/** The snapshot with `n` queues in one cohort sharing the cluster's cpu and memory, jobs round-robin. */
function withQueues(snap: ClusterSnapshot, n: number): ClusterSnapshot {
  if (n <= 0) return snap;
  const total = (r: string) => snap.nodes.reduce((s, node) => s + (node.allocatable[r] ?? 0), 0);
  const nominalQuota = { cpu: Math.floor(total('cpu') / n), memory: Math.floor(total('memory') / n) };
  const queues = Array.from({ length: n }, (_, i) => ({ name: `q${i}`, cohort: 'all', nominalQuota, weight: 1 }));
  return { ...snap, queues, jobs: snap.jobs.map((j, i) => ({ ...j, spec: { ...j.spec, queue: `q${i % n}` } })) };
}

function measure(sweep: Row['sweep'], scenario: Scenario, size: ClusterSize): Row[] {
  const snaps = revisions.map((r) => withQueues(r.randomSnapshot(size, seed, scenario), Number(values.queues)));
  const running = snaps[0]!.jobs.filter((j) => j.phase === 'running').length;
  const runs = runsFor(size.nodes, size.waiting);
  return policies.flatMap((policy) => {
    const passes = revisions.map((r, i) => () => r.policies.schedule(policy, snaps[i]!, r.scheduler.DEFAULT_SCHEDULER_CONFIG));
    for (let w = 0; w < 3; w++) for (const pass of passes) pass();
    const plans = passes.map((pass) => pass());
    const times: number[][] = passes.map(() => []);
    for (let i = 0; i < runs; i++) {
      passes.forEach((pass, r) => {
        const t0 = performance.now();
        plans[r] = pass();
        times[r]!.push(performance.now() - t0);
      });
    }
    return revisions.map((rev, r) => {
      const row = rowOf({ sweep, scenario, size, running, policy, runs }, times[r]!, plans[r]!, rev.source.revision);
      printRow(row);
      return row;
    });
  });
}

function rowOf(
  at: { sweep: Row['sweep']; scenario: Scenario; size: ClusterSize; running: number; policy: PolicyName; runs: number },
  times: number[],
  plan: Plan,
  revision: string,
): Row {
  times.sort((a, b) => a - b);
  return {
    sweep: at.sweep,
    scenario: at.scenario,
    nodes: at.size.nodes,
    waiting: at.size.waiting,
    running: at.running,
    policy: at.policy,
    revision,
    runs: at.runs,
    medianMs: round(percentile(times, 50), 3),
    p99Ms: round(percentile(times, 99), 3),
    minMs: round(times[0]!, 3),
    maxMs: round(times[times.length - 1]!, 3),
    plan: {
      admitted: plan.admit.length,
      scaledIn: plan.scaleIn.reduce((s, x) => s + x.remove.length, 0),
      scaledOut: plan.scaleOut.reduce((s, x) => s + x.add.length, 0),
      waiting: plan.waiting.length,
    },
  };
}

function printRow(row: Row): void {
  console.log(
    [
      row.sweep.padEnd(5),
      row.scenario.padEnd(5),
      String(row.nodes).padStart(5),
      String(row.waiting).padStart(6),
      String(row.running).padStart(6),
      row.policy.padEnd(12),
      row.medianMs.toFixed(2).padStart(9),
      row.p99Ms.toFixed(2).padStart(9),
      String(row.runs).padStart(4),
      String(row.plan.admitted).padStart(6),
      ...(revisions.length > 1 ? [row.revision.slice(0, 8)] : []),
    ].join(' '),
  );
}

const startedAt = new Date();
const rows: Row[] = [];
console.log(`node ${process.version}, seed ${seed}`);
console.log(`sweep scen. nodes waiting running policy      median ms  p99 ms  runs admitted${revisions.length > 1 ? ' revision' : ''}`);
for (const scenario of values.scenarios.split(',') as Scenario[]) {
  for (const nodes of values.sizes.split(',').map(Number)) {
    rows.push(...measure('nodes', scenario, { nodes, waiting: Math.round(nodes * 0.4), running: Math.round(nodes * 0.2) }));
  }
  const fixed = Number(values['jobs-sweep-nodes']);
  for (const waiting of values.waiting
    .split(',')
    .filter((w) => w !== '')
    .map(Number)) {
    rows.push(...measure('jobs', scenario, { nodes: fixed, waiting, running: Math.round(fixed * 0.2) }));
  }
}

const dir = resultDir(values.out);
writeJson(path.join(dir, 'scheduling-pass.json'), {
  ...header(SCHEMA, startedAt),
  finishedAt: new Date().toISOString(),
  params: {
    revision: revisions[0]!.source.revision,
    revisions: revisions.map((r) => r.source.revision),
    seed,
    sizes: values.sizes,
    waitingSweep: values.waiting,
    jobsSweepNodes: Number(values['jobs-sweep-nodes']),
    scenarios: values.scenarios,
    policies,
    inputs: 'bench/random-cluster.ts randomSnapshot',
  },
  rows,
});
for (const scenario of values.scenarios.split(',') as Scenario[]) {
  const series: Series[] = policies.map((policy, i) => ({
    name: policy,
    colorIndex: i,
    points: rows
      .filter((r) => r.sweep === 'nodes' && r.scenario === scenario && r.policy === policy && r.revision === revisions[0]!.source.revision)
      .map((r) => [r.nodes, r.medianMs] as const),
  }));
  writeText(
    path.join(dir, `scheduling-pass-${scenario}.svg`),
    lineChart({
      title: `One scheduling pass (${scenario}): median ms vs nodes (0.4 waiting, 0.2 running jobs per node)`,
      xLabel: 'nodes',
      yLabel: 'median ms per pass',
      series,
    }),
  );
}
console.log(`wrote ${path.join(dir, 'scheduling-pass.json')}`);
for (const r of revisions) r.source.remove();
