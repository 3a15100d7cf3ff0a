// Discrete-event simulation of one policy on one scenario. Events are arrivals, job completions,
// replicas finishing their start-up, and a periodic tick (the core's starvation aging and
// cool-downs read the clock only when asked). At every event the scheduling core is called on a
// snapshot and its Plan applied, again until it has nothing more to do; then every job's progress
// rate is recomputed from where its ready replicas run, and time jumps to the next event. With the
// `cpu` option (vertical/) the rate is also scaled by the CPU each job gets on its nodes, and a
// vertical rule's rounds are events too.
import type { ClusterSnapshot, Plan, QueueSpec, Resources } from '../../src/scheduler/types.ts';
import type { ClusterShape, WorkloadJob } from '../workloads/model.ts';
import { addResources } from '../workloads/resources.ts';
import { progressRate } from '../workloads/throughput.ts';
import { foldSteps } from '../../src/progress/signals/rate.ts';
import type { SimJob } from './state.ts';
import { ClusterState } from './state.ts';
import { CpuSimulation, type CpuOutcome } from './vertical/cpu-sim.ts';
import type { CpuModelOptions } from './vertical/options.ts';

/** One scheduling pass of the core with the policy and config already chosen. */
export type SchedulePass = (snapshot: ClusterSnapshot) => Plan;

export interface SimulationOptions {
  readonly cluster: ClusterShape;
  readonly jobs: readonly WorkloadJob[];
  readonly schedule: SchedulePass;
  readonly startupSeconds: number;
  readonly tickSeconds: number;
  readonly horizonSeconds: number;
  /** Put each job's scaling curve into the spec the core sees (see the scenario field of that name). */
  readonly declareScalingCurves?: boolean;
  /** Jobs may be suspended whole (the scenario's `suspendable`). */
  readonly suspendable?: boolean;
  /** Queues with quotas (the scenario's `queues`); absent or empty: the single global queue. */
  readonly queues?: readonly QueueSpec[];
  /** Show the core each job's remaining work (policies registered as oracles only). */
  readonly oracle?: boolean;
  /** Passes per event before giving up on convergence (the core admits ≤ 1 job per pass via preemption). */
  readonly maxPassesPerEvent?: number;
  /** CPU limits and contention on each node, and a vertical rule (vertical/); absent: CPU is not modelled. */
  readonly cpu?: CpuModelOptions;
  readonly onEvent?: (status: ProgressStatus) => void;
}

export interface ProgressStatus {
  readonly now: number;
  readonly horizon: number;
  readonly finished: number;
  readonly total: number;
  readonly events: number;
}

/** The cluster between this sample's time and the next one's. */
export interface TimelineSample {
  readonly t: number;
  /** Requests of all bound pods. */
  readonly allocated: Resources;
  /** Requests of bound pods whose job is progressing. */
  readonly useful: Resources;
  readonly waitingJobs: number;
  readonly runningJobs: number;
  /** Created but unbound pods (only the tf-operator baseline has any). */
  readonly pendingPods: number;
  /** Per team (scenarios with `teams`): requests of its bound pods and its waiting jobs. */
  readonly teams?: Readonly<Record<string, TeamSample>>;
}

export interface TeamSample {
  readonly allocated: Resources;
  readonly waitingJobs: number;
}

export interface JobOutcome {
  readonly name: string;
  readonly label: string;
  /** The team that submitted it (scenarios with `teams`), else null. */
  readonly team: string | null;
  readonly submitted: number;
  readonly started: number | null;
  readonly finished: number | null;
  readonly jct: number | null;
  readonly waited: number | null;
  /** Submission → first progress (all PS and a worker running): for tf-operator, a bound PS is not a start. */
  readonly waitedToProgress: number | null;
  readonly workersMin: number | null;
  readonly workersMax: number | null;
  readonly preemptedWorkers: number;
  readonly scaleOuts: number;
  /** Times the whole job went back to the queue. */
  readonly suspensions: number;
  /** The longest it waited in the queue at once (s): submission or a suspension to admission; null if never admitted. */
  readonly longestQueueStay: number | null;
  /** Submission → the job's metric first within 1% of its final value; null if never (or no signal). */
  readonly timeToAccuracy: number | null;
  /** Jobs that stated a performance target: how long it was met (engine.ts meetsTarget). */
  readonly qoe: JobQoeOutcome | null;
}

export interface JobQoeOutcome {
  readonly kind: 'throughput' | 'deadline';
  /** Seconds from submission to finish (or the horizon), of those running, and met (only ever while running). */
  readonly trackedSeconds: number;
  readonly runningSeconds: number;
  readonly metSeconds: number;
  /** Deadline jobs: finished by the deadline. */
  readonly deadlineMet: boolean | null;
  /** Throughput jobs: the target, and the steps per second the job made over the time it ran. */
  readonly targetStepsPerSecond: number | null;
  readonly meanStepsPerSecond: number | null;
  /** The user's verdict: a deadline met, or a mean rate while running of at least (1 − α) × the target. */
  readonly met: boolean;
}

export interface SimulationResult {
  readonly jobs: readonly JobOutcome[];
  readonly timeline: readonly TimelineSample[];
  readonly capacity: Resources;
  /** First submission. */
  readonly start: number;
  /** Last completion, or the horizon when a job is unfinished. */
  readonly end: number;
  readonly horizon: number;
  readonly pods: { readonly created: number; readonly deleted: number; readonly succeeded: number };
  readonly events: number;
  readonly passes: number;
  /** Events after which the core still had work to do at `maxPassesPerEvent` (should be 0). */
  readonly unconvergedEvents: number;
  /** With the `cpu` option: the vertical rule's rounds and per-job CPU and G/S/B seconds. */
  readonly cpu?: CpuOutcome;
}

/** Relative slack for "this job is done" and "these events coincide": absorbs float drift only. */
const EPSILON = 1e-9;

export function simulate(options: SimulationOptions): SimulationResult {
  return new Simulation(options).run();
}

class Simulation {
  private readonly options: SimulationOptions;
  private readonly state: ClusterState;
  private readonly timeline: TimelineSample[] = [];
  private now = 0;
  private events = 0;
  private passes = 0;
  private unconvergedEvents = 0;
  private readonly arrivals: SimJob[];
  private nextArrival = 0;
  private readonly cpu: CpuSimulation | undefined;

  constructor(options: SimulationOptions) {
    this.options = options;
    this.cpu = options.cpu === undefined ? undefined : new CpuSimulation(options.cpu, options.startupSeconds);
    this.state = new ClusterState(
      options.cluster,
      options.jobs,
      options.declareScalingCurves ?? false,
      options.suspendable ?? false,
      options.queues ?? [],
    );
    this.arrivals = [...this.state.jobs].sort((a, b) => a.workload.submitSeconds - b.workload.submitSeconds);
  }

  run(): SimulationResult {
    const { horizonSeconds } = this.options;
    const start = this.arrivals[0]?.workload.submitSeconds ?? 0;
    this.now = Math.min(start, horizonSeconds);
    while (this.unfinished() > 0) {
      const next = this.nextEventTime();
      if (next > horizonSeconds) {
        this.advanceTo(horizonSeconds);
        break;
      }
      this.advanceTo(next);
      this.admitArrivals();
      this.schedule();
      this.updateRates();
      if (this.cpu?.roundIfDue(this.state, this.now) === true) this.cpu.rescale(this.state, this.now);
      this.record();
      this.events += 1;
      this.options.onEvent?.({
        now: this.now,
        horizon: horizonSeconds,
        finished: this.state.jobs.length - this.unfinished(),
        total: this.state.jobs.length,
        events: this.events,
      });
    }
    const end = this.unfinished() > 0 ? horizonSeconds : this.now;
    this.record();
    return {
      jobs: this.state.jobs.map((job) => outcome(job)),
      timeline: this.timeline,
      capacity: this.state.capacity,
      start,
      end,
      horizon: horizonSeconds,
      pods: { ...this.state.pods },
      events: this.events,
      passes: this.passes,
      unconvergedEvents: this.unconvergedEvents,
      ...(this.cpu === undefined ? {} : { cpu: this.cpu.outcome(this.state) }),
    };
  }

  private unfinished(): number {
    return this.state.jobs.filter((j) => j.phase !== 'finished').length;
  }

  private nextEventTime(): number {
    let next = Number.POSITIVE_INFINITY;
    const arrival = this.arrivals[this.nextArrival];
    if (arrival !== undefined) next = arrival.workload.submitSeconds;
    const { startupSeconds, tickSeconds } = this.options;
    let anyActive = false;
    for (const job of this.state.jobs) {
      if (job.phase === 'waiting') anyActive = true;
      if (job.phase !== 'running') continue;
      anyActive = true;
      if (job.rate > 0) next = Math.min(next, this.now + job.remaining / job.rate);
      for (const r of job.replicas.values()) {
        if (r.boundAt !== undefined && r.boundAt + startupSeconds > this.now) next = Math.min(next, r.boundAt + startupSeconds);
      }
    }
    // Ticks only matter while some job is waiting or running; otherwise jump to the next arrival.
    if (anyActive) next = Math.min(next, (Math.floor(this.now / tickSeconds + EPSILON) + 1) * tickSeconds);
    if (anyActive && this.cpu !== undefined) next = Math.min(next, Math.max(this.now, this.cpu.nextRoundAt()));
    return next;
  }

  /** Moves the clock, crediting progress; jobs whose work is done by then finish at their exact time. */
  private advanceTo(t: number): void {
    const dt = t - this.now;
    this.cpu?.account(this.state, dt);
    for (const job of this.state.jobs) {
      if (job.workload.qoe !== undefined && (job.phase === 'waiting' || job.phase === 'running')) {
        job.qoeTrackedSeconds += dt;
        if (job.phase === 'running') job.qoeRunningSeconds += dt;
        if (meetsTarget(job, this.now)) job.qoeMetSeconds += dt;
      }
      if (job.phase === 'running') job.attainedWorkerSeconds += this.state.boundWorkerCount(job) * dt;
      if (job.phase !== 'running' || job.rate <= 0) continue;
      const finishAt = this.now + job.remaining / job.rate;
      const done = job.workload.work - job.remaining;
      if (finishAt <= t + EPSILON * Math.max(1, t)) {
        job.signal.advance(done, job.workload.work, this.now, job.rate);
        this.state.finish(job, Math.min(finishAt, t));
      } else {
        job.signal.advance(done, done + job.rate * dt, this.now, job.rate);
        job.remaining -= job.rate * dt;
      }
    }
    this.now = t;
    for (const job of this.state.jobs) job.signal.evaluate(t);
  }

  private admitArrivals(): void {
    for (let job = this.arrivals[this.nextArrival]; job !== undefined; job = this.arrivals[this.nextArrival]) {
      if (job.workload.submitSeconds > this.now) break;
      job.phase = 'waiting';
      this.nextArrival += 1;
    }
  }

  private schedule(): void {
    const maxPasses = this.options.maxPassesPerEvent ?? 32;
    for (let pass = 0; pass < maxPasses; pass++) {
      const plan = this.options.schedule(this.state.snapshot(this.now, this.options.oracle ?? false));
      this.passes += 1;
      if (plan.suspend.length + plan.admit.length + plan.scaleIn.length + plan.scaleOut.length + plan.bind.length === 0) return;
      this.state.apply(plan, this.now);
      this.observeWorkers();
    }
    this.unconvergedEvents += 1;
  }

  private observeWorkers(): void {
    for (const job of this.state.jobs) {
      if (job.phase !== 'running' || job.started === undefined) continue;
      const workers = this.state.boundWorkerCount(job);
      job.workersMin = Math.min(job.workersMin ?? workers, workers);
      job.workersMax = Math.max(job.workersMax ?? workers, workers);
    }
  }

  private updateRates(): void {
    for (const job of this.state.jobs) {
      if (job.phase !== 'running') continue;
      job.rate = progressRate(job.workload, this.state.readyPlacement(job, this.now, this.options.startupSeconds));
    }
    // The CPU a job gets on its nodes scales the rate of its placement.
    this.cpu?.rescale(this.state, this.now);
    for (const job of this.state.jobs) {
      if (job.phase !== 'running') continue;
      const ready = this.state.readyPlacement(job, this.now, this.options.startupSeconds);
      if (job.rate > 0) job.firstProgress ??= this.now;
      if (job.workload.qoe !== undefined) {
        // The step the job's log shows now; a rate belongs to the workers that make progress.
        const step = { source: 'protocol' as const, step: job.workload.work - job.remaining, value: 0, name: 'step', higherIsBetter: true };
        const workers = job.rate > 0 ? ready.workers.length : 0;
        job.steps = foldSteps(job.steps, [{ ...step, time: this.now * 1000 }], workers, this.now * 1000);
      }
    }
  }

  private record(): void {
    let useful: Resources = {};
    let waitingJobs = 0;
    let runningJobs = 0;
    let pendingPods = 0;
    const teams: Record<string, { allocated: Resources; waitingJobs: number }> = {};
    for (const job of this.state.jobs) {
      const team = job.workload.team;
      if (team !== undefined) {
        const t = (teams[team] ??= { allocated: {}, waitingJobs: 0 });
        if (job.phase === 'waiting') t.waitingJobs += 1;
        if (job.phase === 'running') t.allocated = addResources(t.allocated, this.state.heldBy(job));
      }
      if (job.phase === 'waiting') waitingJobs += 1;
      if (job.phase !== 'running') continue;
      runningJobs += 1;
      if (job.rate > 0) useful = addResources(useful, this.state.heldBy(job));
      for (const r of job.replicas.values()) if (r.node === undefined) pendingPods += 1;
    }
    const sample: TimelineSample = {
      t: this.now,
      allocated: this.state.allocated(),
      useful,
      waitingJobs,
      runningJobs,
      pendingPods,
      ...(Object.keys(teams).length > 0 ? { teams } : {}),
    };
    const last = this.timeline.at(-1);
    // Several records at one instant: only the last state lasts for a non-zero time.
    if (last?.t === this.now) this.timeline[this.timeline.length - 1] = sample;
    // A tick that changed nothing adds no information to a step function.
    else if (last === undefined || !sameState(last, sample)) this.timeline.push(sample);
  }
}

/**
 * Whether the job runs at least (1 − α) × the rate its target needs now, by its true rate (the
 * figure is the same for every policy, whatever any of them measures). Waiting never meets it.
 */
function meetsTarget(job: SimJob, now: number): boolean {
  const target = job.workload.qoe!;
  if (job.phase !== 'running') return false;
  let required: number;
  if (target.stepsPerSecond !== undefined) required = target.stepsPerSecond;
  else if (target.deadline !== undefined) {
    const left = target.deadline.at / 1000 - now;
    if (left <= 0) return false;
    required = job.remaining / left;
  } else return true;
  return job.rate >= (1 - target.tolerance) * required;
}

function sameResources(a: Resources, b: Resources): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

function sameState(a: TimelineSample, b: TimelineSample): boolean {
  return (
    a.waitingJobs === b.waitingJobs &&
    a.runningJobs === b.runningJobs &&
    a.pendingPods === b.pendingPods &&
    sameResources(a.allocated, b.allocated) &&
    sameResources(a.useful, b.useful) &&
    sameTeams(a.teams, b.teams)
  );
}

function sameTeams(a: TimelineSample['teams'], b: TimelineSample['teams']): boolean {
  if (a === undefined || b === undefined) return a === b;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].every((n) => {
    const x = a[n];
    const y = b[n];
    return x !== undefined && y !== undefined && x.waitingJobs === y.waitingJobs && sameResources(x.allocated, y.allocated);
  });
}

function outcome(job: SimJob): JobOutcome {
  const submitted = job.workload.submitSeconds;
  return {
    name: job.workload.name,
    label: job.workload.label,
    team: job.workload.team ?? null,
    submitted,
    started: job.started ?? null,
    finished: job.finished ?? null,
    jct: job.finished === undefined ? null : job.finished - submitted,
    waited: job.started === undefined ? null : job.started - submitted,
    waitedToProgress: job.firstProgress === undefined ? null : job.firstProgress - submitted,
    workersMin: job.workersMin ?? null,
    workersMax: job.workersMax ?? null,
    preemptedWorkers: job.preemptedWorkers,
    scaleOuts: job.scaleOuts,
    suspensions: job.suspensions,
    longestQueueStay: job.started === undefined ? null : job.longestQueueStay,
    timeToAccuracy: job.signal.accuracyAt === undefined ? null : job.signal.accuracyAt - submitted,
    qoe: qoeOutcome(job),
  };
}

function qoeOutcome(job: SimJob): JobQoeOutcome | null {
  const target = job.workload.qoe;
  if (target === undefined) return null;
  const deadline = target.deadline;
  const deadlineMet = deadline === undefined ? null : job.finished !== undefined && job.finished * 1000 <= deadline.at;
  const mean = job.qoeRunningSeconds > 0 ? (job.workload.work - job.remaining) / job.qoeRunningSeconds : null;
  const required = target.stepsPerSecond ?? null;
  return {
    kind: deadline === undefined ? 'throughput' : 'deadline',
    trackedSeconds: job.qoeTrackedSeconds,
    runningSeconds: job.qoeRunningSeconds,
    metSeconds: job.qoeMetSeconds,
    deadlineMet,
    targetStepsPerSecond: required,
    meanStepsPerSecond: required === null ? null : mean,
    met: deadlineMet ?? (required !== null && mean !== null && mean >= (1 - target.tolerance) * required),
  };
}
