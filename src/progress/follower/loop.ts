// When progress is read and what comes of it. Rounds run at the adaptive evaluation period (FlowCon
// Algorithm 2: it doubles while every followed job is Converged) and at once when the set of
// followed jobs changes. After a round: `status.progress` of each job whose view changed is handed
// to the reconciler (which writes it), a phase change is an event, and a log that cannot be read
// or holds bad lines is a warning event at most every ten minutes per job.
import { ANNOTATION_PROGRESS_REPLICA, DEFAULT_CONTAINER_NAME, LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry, TFJobEntry } from '../../api/v1/parse.ts';
import { canonicalReplicaType, type ReplicaType } from '../../api/v1/replica-types.ts';
import type { ProgressStatus } from '../../api/v1/schema.ts';
import { isFinished } from '../../reconciler/tfjob/conditions.ts';
import { replicaName, isControlledBy } from '../../reconciler/tfjob/identity.ts';
import { isTerminating } from '../../reconciler/tfjob/pod-state.ts';
import {
  DEFAULT_PERIOD_CONFIG,
  jobSetChanged,
  nextPeriod,
  planProgress,
  progressSource,
  type PeriodConfig,
  type PlanProgress,
  type MeasuredRate,
  type PeriodState,
  type ProgressView,
  type EvaluationSeries,
} from '../signals/index.ts';
import { httpStatus } from '../../runtime/http-status.ts';
import { apiErrorMessage } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import { namespacedKey } from '../../runtime/store.ts';
import type { JobProgress, StepRate } from '../../scheduler/types.ts';
import { planCpuResizes, type CpuResize, type PodResizer } from './cpu-resize.ts';
import type { ProgressMetrics } from './metrics.ts';
import type { ProgressTarget, RoundReport } from './reader.ts';
import { planInputOf, progressStatus } from './progress-status.ts';
import { Ticker } from '../../runtime/ticker.ts';

export { progressStatus };

export const EVENT_PROGRESS_PHASE = 'ProgressPhaseChanged';
export const EVENT_PROGRESS_UNREADABLE = 'ProgressUnreadable';
/** Warning: a NaN or infinite loss or metric in the job's log (status.progress.phase Diverged). */
export const EVENT_DIVERGED = 'Diverged';
export const EVENT_CPU_RESIZED = 'CpuResized';
export const EVENT_CPU_RESIZE_FAILED = 'CpuResizeFailed';
const WARNING_EVERY_MS = 10 * 60_000;
/** How often the loop looks whether a round is due (a changed job set starts one at once). */
const CHECK_MS = 2_000;

/** The reader as the loop uses it (ProgressReader; a fake in tests). */
export interface ProgressRounds {
  round(targets: readonly ProgressTarget[]): Promise<RoundReport>;
  view(key: string): ProgressView | undefined;
  rate(key: string): MeasuredRate | undefined;
  /** The last rate with the present workers, however old (a plan's ETA); absent in fakes: no ETA. */
  pace?(key: string): MeasuredRate | undefined;
  /** The job's evaluation series (FlowCon's E(t)); absent in fakes: none. */
  series?(key: string): EvaluationSeries | undefined;
  lastSampleAt?(key: string): number | undefined;
}

export interface ProgressLoopDeps {
  readonly jobs: () => readonly TFJobEntry[];
  readonly pod: (namespace: string, name: string) => Pod | undefined;
  /** The pods of a job (namespace/name), for its running worker count. */
  readonly podsOf: (key: string) => readonly Pod[];
  /**
   * Follow every running job (--progress-period > 0), or only those with a performance target
   * (`spec.qoe`), whose step rate the scheduler needs whatever that flag says.
   */
  readonly followAll: boolean;
  /** The job's class against its target after the last scheduling pass (DQoES Algorithm 2's |S|). */
  readonly qoeClassOf?: (key: string) => string | undefined;
  readonly reader: ProgressRounds;
  /** Reads, rounds and the budget (absent in unit tests that do not look). */
  readonly metrics?: ProgressMetrics;
  readonly event: (job: TFJobEntry, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  /** The job's `status.progress` changed: reconcile it so the status is written. */
  readonly changed: (key: string) => void;
  readonly log: Logger;
  readonly period?: PeriodConfig;
  readonly now?: () => number;
  /**
   * --resize-converged-cpu: after each round, converged jobs' workers get their CPU limit lowered
   * in place to this fraction of the template's (cpu-resize.ts), others get it back. Absent: off.
   */
  readonly resize?: { readonly fraction: number; readonly resizer: PodResizer };
}

/** The running pod whose log carries the job's progress, or why there is none. */
export function progressTarget(
  entry: ParsedTFJobEntry,
  pod: (namespace: string, name: string) => Pod | undefined,
  podsOf: (key: string) => readonly Pod[] = () => [],
): ProgressTarget | { readonly key: string; readonly invalid: string } | undefined {
  const { defaulted } = entry;
  const metadata = entry.job.metadata;
  if (isFinished(entry.status?.conditions ?? []) || defaulted.spec.runPolicy.suspend === true) return undefined;
  const counts = new Map<ReplicaType, number>();
  for (const [type, spec] of Object.entries(defaulted.spec.tfReplicaSpecs)) {
    const canonical = canonicalReplicaType(type);
    if (canonical !== undefined) counts.set(canonical, spec.replicas);
  }
  const source = progressSource(counts, metadata.annotations?.[ANNOTATION_PROGRESS_REPLICA]);
  if (source.kind === 'invalid') return { key: namespacedKey(metadata.namespace ?? 'default', metadata.name), invalid: source.message };
  if (source.kind === 'none') return undefined;
  const namespace = metadata.namespace ?? 'default';
  const key = namespacedKey(namespace, metadata.name);
  const name = replicaName(metadata.name, source.type, source.index);
  const p = pod(namespace, name);
  const uid = metadata.uid;
  if (p === undefined || p.status?.phase !== 'Running' || isTerminating(p) || (uid !== undefined && !isControlledBy(p, uid)))
    return undefined;
  const workers = podsOf(key).filter(
    (w) =>
      w.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker' &&
      w.status?.phase === 'Running' &&
      !isTerminating(w) &&
      (uid === undefined || isControlledBy(w, uid)),
  ).length;
  return { key, namespace, pod: name, podUid: p.metadata?.uid ?? '', container: DEFAULT_CONTAINER_NAME, workers };
}

export class ProgressLoop {
  readonly #deps: ProgressLoopDeps;
  readonly #now: () => number;
  readonly #published = new Map<string, ProgressStatus>();
  /** Reads of each job's log since its `status.progress` last changed here: see #publish. */
  readonly #readsSincePublished = new Map<string, number>();
  readonly #warnedAt = new Map<string, number>();
  /** Pods whose in-place resize the API server refused, and when: not asked again for ten minutes. */
  readonly #resizeRefusedAt = new Map<string, number>();
  /** `spec.qoe.targetMetric` of the followed jobs that set one. */
  readonly #metricTargets = new Map<string, number>();
  /** `spec.qoe.totalSteps` of the followed jobs that set one: their declared plan. */
  readonly #specTotalSteps = new Map<string, number>();
  #period: PeriodState | undefined;
  #lastRound = Number.NEGATIVE_INFINITY;
  readonly #ticker: Ticker;

  constructor(deps: ProgressLoopDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => Date.now());
    this.#ticker = new Ticker(
      CHECK_MS,
      () => this.tick(),
      (err) => {
        deps.log.warn({ err }, 'Progress round failed');
      },
    );
  }

  /** What the reconciler writes to `status.progress` (undefined: no signal, field removed). */
  statusOf(key: string): ProgressStatus | undefined {
    return this.#published.get(key);
  }

  /** When the job's last progress line was read (ms), however old (reconciler/tfjob/not-training.ts). */
  lastProgressAt(key: string): number | undefined {
    return this.#deps.reader.lastSampleAt?.(key);
  }

  /** The job's measured step rate as the scheduler may use it (undefined: not measured, or stale). */
  stepRateOf(key: string): StepRate | undefined {
    return this.#deps.reader.rate(key);
  }

  /** The values of the job's tracked metric with their times (FlowCon's growth efficiency). */
  seriesOf(key: string): EvaluationSeries | undefined {
    return this.#deps.reader.series?.(key);
  }

  /** The job's phase as the scheduler may use it (undefined: no signal, or a stale one). */
  phaseOf(key: string): JobProgress | undefined {
    const v = this.#deps.reader.view(key);
    if (v === undefined) return undefined;
    const planDone = this.#planOf(key, v)?.fraction;
    return {
      phase: v.phase,
      since: v.since,
      ...(v.growth === undefined ? {} : { growth: v.growth }),
      ...(this.targetReachedOf(key) === undefined ? {} : { targetReached: true }),
      ...(planDone === undefined ? {} : { planDone }),
    };
  }

  #planOf(key: string, v: ProgressView): PlanProgress | undefined {
    const total = this.#specTotalSteps.get(key);
    return planProgress({ ...planInputOf(v), ...(total === undefined ? {} : { specTotalSteps: total }) });
  }

  /**
   * When the job's smoothed metric has reached its `spec.qoe.targetMetric` (in the metric's own
   * direction), what it reads, in words; undefined while not (or without such a target or signal).
   */
  targetReachedOf(key: string): string | undefined {
    const target = this.#metricTargets.get(key);
    const v = this.#deps.reader.view(key);
    if (target === undefined || v === undefined) return undefined;
    const reached = v.higherIsBetter ? v.metric >= target : v.metric <= target;
    return reached ? `${v.name} ${Number(v.metric.toPrecision(6))} reached the target ${target}` : undefined;
  }

  start(): void {
    this.#ticker.start();
  }

  async stop(): Promise<void> {
    await this.#ticker.stop();
  }

  /** Runs a round if one is due (the period elapsed, or the followed jobs changed). */
  async tick(): Promise<boolean> {
    const targets: ProgressTarget[] = [];
    /** The TFJob of every target, for its events. */
    const entries = new Map<string, TFJobEntry>();
    /** Each followed job with its target, so that a changed target starts a round (DQoES Algorithm 2). */
    const signatures: string[] = [];
    for (const entry of this.#deps.jobs()) {
      if (!entry.ok) continue;
      const qoe = entry.job.spec?.qoe;
      if (!this.#deps.followAll && qoe === undefined) continue;
      const t = progressTarget(entry, this.#deps.pod, this.#deps.podsOf);
      if (t === undefined) continue;
      if ('invalid' in t) this.#warn(entry, t.key, t.invalid);
      else {
        targets.push(t);
        entries.set(t.key, entry);
        signatures.push(qoe === undefined ? t.key : `${t.key}#${JSON.stringify(qoe)}`);
        if (qoe?.targetMetric === undefined) this.#metricTargets.delete(t.key);
        else this.#metricTargets.set(t.key, qoe.targetMetric);
        if (qoe?.totalSteps === undefined) this.#specTotalSteps.delete(t.key);
        else this.#specTotalSteps.set(t.key, qoe.totalSteps);
      }
    }
    const keys = targets.map((t) => t.key);
    const periodMs = this.#period?.periodMs ?? (this.#deps.period ?? DEFAULT_PERIOD_CONFIG).initialMs;
    const due = this.#now() - this.#lastRound >= periodMs;
    if (!due && !jobSetChanged(this.#period, signatures)) return false;
    this.#lastRound = this.#now();
    let report: RoundReport;
    const startedAt = performance.now();
    try {
      report = await this.#deps.reader.round(targets);
    } catch (err) {
      this.#deps.log.warn({ err }, 'Progress round failed');
      return false;
    }
    this.#deps.metrics?.round(report, (performance.now() - startedAt) / 1000, periodMs);
    if ((report.skipped?.size ?? 0) > 0)
      this.#deps.log.debug({ skipped: Object.fromEntries(report.skipped!) }, 'Skipped progress log lines');
    this.#publish(entries, report);
    await this.#resize(entries);
    // Quiet: nothing to learn soon. A job with a rate target is quiet while it meets it (DQoES
    // Algorithm 2: a job dropping out of its target, |S| falling, is then not quiet and the period
    // starts over), any other while it has converged (FlowCon).
    const quiet = (k: string): boolean => {
      const entry = entries.get(k);
      const q = entry?.ok === true ? entry.job.spec?.qoe : undefined;
      const rateTarget = q !== undefined && (q.stepsPerSecond ?? q.secondsPerStep ?? q.deadline ?? q.deadlineSeconds) !== undefined;
      return rateTarget ? this.#deps.qoeClassOf?.(k) === 'Satisfied' : this.#deps.reader.view(k)?.phase === 'Converged';
    };
    const allConverged = keys.length > 0 && keys.every(quiet);
    this.#period = nextPeriod(this.#period, { jobs: signatures, allConverged }, this.#deps.period ?? DEFAULT_PERIOD_CONFIG);
    return true;
  }

  /**
   * Hands changed `status.progress` to the reconciler. A new phase (or a signal appearing or going)
   * is written at once; a new metric value of the same phase at every other read of the job's log:
   * each write is a status update of the TFJob, and one per read doubled the API load of following
   * 1,000 jobs (docs/benchmarks.md §2.4). The scheduler reads the phase from the reader, never from
   * here, so it is not delayed by this.
   */
  #publish(entries: ReadonlyMap<string, TFJobEntry>, report: RoundReport): void {
    for (const key of [...this.#metricTargets.keys()]) if (!entries.has(key)) this.#metricTargets.delete(key);
    for (const key of [...this.#specTotalSteps.keys()]) if (!entries.has(key)) this.#specTotalSteps.delete(key);
    for (const key of [...this.#published.keys()]) {
      if (entries.has(key)) continue;
      this.#published.delete(key);
      this.#deps.changed(key);
    }
    for (const key of [...this.#readsSincePublished.keys()]) if (!entries.has(key)) this.#readsSincePublished.delete(key);
    for (const key of report.read) this.#readsSincePublished.set(key, (this.#readsSincePublished.get(key) ?? 0) + 1);
    for (const key of entries.keys()) {
      const view = this.#deps.reader.view(key);
      const entry = entries.get(key);
      const specTotalSteps = entry?.ok === true ? entry.job.spec?.qoe?.totalSteps : undefined;
      const next = view === undefined ? undefined : progressStatus(view, specTotalSteps, this.#deps.reader.pace?.(key));
      const before = this.#published.get(key);
      if (JSON.stringify(next) === JSON.stringify(before)) continue;
      const samePhase = next !== undefined && before !== undefined && next.phase === before.phase && next.since === before.since;
      // A new epoch is written at once: it comes once per epoch, not once per read.
      const sameEpoch = next?.epoch === before?.epoch;
      if (samePhase && sameEpoch && (this.#readsSincePublished.get(key) ?? 0) < 2) continue;
      if (next === undefined) this.#published.delete(key);
      else this.#published.set(key, next);
      this.#readsSincePublished.set(key, 0);
      this.#deps.changed(key);
    }
    for (const [key, [from, to]] of report.phaseChanges) {
      const entry = entries.get(key);
      const s = this.#published.get(key);
      if (entry === undefined || s === undefined) continue;
      const growth = s.growth === undefined ? '' : `, growth ${s.growth}`;
      this.#deps.event(
        entry,
        'Normal',
        EVENT_PROGRESS_PHASE,
        `Progress phase ${to}${from === undefined ? '' : ` (was ${from})`}: ${s.metricName ?? 'metric'} ${s.metric ?? ''}${growth}`,
      );
    }
    for (const [key, why] of report.diverged ?? []) {
      const entry = entries.get(key);
      if (entry === undefined) continue;
      this.#deps.log.info({ tfjob: key, why }, 'Training diverged');
      this.#deps.event(
        entry,
        'Warning',
        EVENT_DIVERGED,
        `Training diverged: ${why}; the job's progress phase is Diverged until a finite value is logged`,
      );
    }
    for (const [key, why] of report.problems) {
      const entry = entries.get(key);
      if (entry !== undefined) this.#warn(entry, key, why);
    }
  }

  /** --resize-converged-cpu: each followed job's workers' CPU limits as its phase asks. */
  async #resize(entries: ReadonlyMap<string, TFJobEntry>): Promise<void> {
    const resize = this.#deps.resize;
    if (resize === undefined) return;
    const podKey = (r: CpuResize): string => namespacedKey(r.namespace, r.pod);
    const refused = (r: CpuResize): boolean => {
      const at = this.#resizeRefusedAt.get(podKey(r));
      return at !== undefined && this.#now() - at < WARNING_EVERY_MS;
    };
    for (const [key, entry] of entries) {
      if (!entry.ok) continue;
      const plans = planCpuResizes(entry, this.#deps.reader.view(key)?.phase, this.#deps.podsOf(key), resize.fraction).filter(
        (r) => !refused(r),
      );
      if (plans.length === 0) continue;
      const done: string[] = [];
      for (const r of plans) {
        try {
          await resize.resizer.resize(r);
          this.#resizeRefusedAt.delete(podKey(r));
          done.push(r.pod);
        } catch (err) {
          // Not asked again for a while: a node whose kubelet does not support resize refuses every time.
          this.#resizeRefusedAt.set(podKey(r), this.#now());
          // A refusal (an API server before 1.33 or with the feature off, a node whose kubelet does
          // not support resize, a webhook, RBAC) is said on the job, at most every ten minutes; the
          // job runs on as it was.
          const code = httpStatus(err);
          const message = `In-place CPU resize of ${r.pod} to ${r.limitMillis}m refused${code !== undefined ? ` (HTTP ${code})` : ''}: ${apiErrorMessage(err)}`;
          this.#warn(entry, `${key}#resize`, message, EVENT_CPU_RESIZE_FAILED);
          break;
        }
      }
      if (done.length === 0) continue;
      const limit = `${plans[0]!.limitMillis}m`;
      const message = plans[0]!.lower
        ? `Lowered the CPU limit of ${done.join(', ')} to ${limit} in place: the job has converged (--resize-converged-cpu)`
        : `Restored the CPU limit of ${done.join(', ')} to ${limit} in place: the job is no longer converged`;
      this.#deps.log.info({ tfjob: key, pods: done, cpuLimit: limit }, 'Resized CPU limits in place');
      this.#deps.event(entry, 'Normal', EVENT_CPU_RESIZED, message);
    }
  }

  #warn(entry: TFJobEntry, key: string, message: string, reason = EVENT_PROGRESS_UNREADABLE): void {
    const last = this.#warnedAt.get(key);
    if (last !== undefined && this.#now() - last < WARNING_EVERY_MS) return;
    this.#warnedAt.set(key, this.#now());
    this.#deps.log.warn({ tfjob: key }, message);
    this.#deps.event(entry, 'Warning', reason, message);
  }
}
