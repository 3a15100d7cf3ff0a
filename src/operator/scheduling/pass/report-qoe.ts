// The report stage of a scheduling pass, performance targets: after each pass, every job with
// `spec.qoe` is read against its target by the core's own classification (qoe.ts), whatever policy
// runs, and the result becomes `status.qoe`, an event when the class changes or the target turns out
// unreachable, and metrics (|S|, |G|, |B| and seconds out of target per job). No I/O: the loop records
// the events, enqueues the jobs whose status changed and sets the metrics.
import { describeQoeTarget } from '../../../api/v1/qoe.ts';
import type { JobCondition, QoeStatus, TFJob } from '../../../api/v1/schema.ts';
import { readQoe, type QoeClass, type QoeReading } from '../../../scheduler/model/qoe.ts';
import type { JobState } from '../../../scheduler/types.ts';

export const CONDITION_TARGET_REACHABLE = 'TargetReachable';
export const EVENT_TARGET_MET = 'TargetMet';
export const EVENT_TARGET_AHEAD = 'TargetAhead';
export const EVENT_TARGET_BEHIND = 'TargetBehind';
export const EVENT_TARGET_UNREACHABLE = 'TargetUnreachable';
export const EVENT_TARGET_METRIC_REACHED = 'TargetMetricReached';

/** Status numbers are rewritten only when they move by this much (relative), or the class changes. */
const REWRITE_RELATIVE_CHANGE = 0.05;

export interface QoeEvent {
  readonly key: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface QoeUpdate {
  /** Jobs whose `status.qoe` changed: reconcile them so it is written. */
  readonly changed: readonly string[];
  readonly events: readonly QoeEvent[];
  /** Jobs per class now, over jobs with a target. */
  readonly counts: Readonly<Record<QoeClass, number>>;
  /** Seconds each job spent Behind since the last update (for a counter). */
  readonly behindSeconds: ReadonlyMap<string, number>;
}

interface Entry {
  status: QoeStatus;
  /** The last class other than Unknown: events compare with it (every move reads Unknown for a while). */
  known?: QoeClass;
  reachable: boolean;
  at: number;
}

const decimal = (x: number): string => String(Number(x.toPrecision(4)));
const time = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function moved(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a !== b;
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) > REWRITE_RELATIVE_CHANGE * Math.max(Math.abs(x), Math.abs(y));
}

function explain(reading: QoeReading): string {
  const rate = (x: number | undefined) => (x === undefined ? '?' : `${decimal(x)} steps/s`);
  if (reading.unreachable !== undefined) return `cannot meet the target: ${reading.unreachable}`;
  switch (reading.class) {
    case 'Unknown':
      return 'measuring the step rate with the present workers';
    case 'Satisfied':
      return reading.required === undefined ? 'all steps done' : `runs ${rate(reading.measured)}, target ${rate(reading.required)}`;
    case 'Ahead':
      return `runs ${rate(reading.measured)}, ahead of the ${rate(reading.required)} needed: may give workers to jobs behind their targets`;
    case 'Behind':
      return `runs ${rate(reading.measured)}, behind the ${rate(reading.required)} needed: first to receive workers`;
  }
}

/** The `TargetReachable` condition; its transition time moves only when its status does. */
function reachableCondition(reading: QoeReading, prev: JobCondition | undefined, now: number): JobCondition {
  const status = reading.unreachable === undefined ? 'True' : 'False';
  return {
    type: CONDITION_TARGET_REACHABLE,
    status,
    reason: reading.unreachableReason ?? 'Reachable',
    message: reading.unreachable ?? 'the target can be met with the workers the job may have',
    lastTransitionTime: prev !== undefined && prev.status === status ? (prev.lastTransitionTime ?? time(now)) : time(now),
  };
}

export class QoeBook {
  readonly #jobs = new Map<string, Entry>();

  statusOf(key: string): QoeStatus | undefined {
    return this.#jobs.get(key)?.status;
  }

  classOf(key: string): QoeClass | undefined {
    return this.#jobs.get(key)?.status.class;
  }

  /** A metric target alone: no rate to classify, only whether it has been reached. True if the status changed. */
  #updateMetricOnly(key: string, job: JobState, target: string, reached: boolean, now: number): boolean {
    const prev = this.#jobs.get(key);
    const status: QoeStatus = {
      target,
      targetMetricReached: reached,
      message: reached
        ? 'the metric reached its target'
        : job.phase === 'running'
          ? 'training towards the metric target'
          : 'waiting in the queue',
    };
    this.#jobs.set(key, { status, reachable: true, at: now });
    return prev === undefined || JSON.stringify(prev.status) !== JSON.stringify(status);
  }

  /** Reads every job with a target; `raw` gives each job's TFJob (for the target in words). */
  update(jobs: readonly JobState[], raw: (key: string) => TFJob | undefined, now: number): QoeUpdate {
    const changed: string[] = [];
    const events: QoeEvent[] = [];
    const counts: Record<QoeClass, number> = { Ahead: 0, Satisfied: 0, Behind: 0, Unknown: 0 };
    const behindSeconds = new Map<string, number>();
    const seen = new Set<string>();
    for (const job of jobs) {
      const key = job.spec.key;
      const spec = raw(key)?.spec?.qoe;
      const resolved = job.spec.qoe;
      if (spec === undefined || resolved === undefined) continue;
      seen.add(key);
      const prev = this.#jobs.get(key);
      const metricReached = resolved.metric === undefined ? undefined : job.progress?.targetReached === true;
      if (metricReached === true && prev?.status.targetMetricReached !== true && resolved.metric?.onReached === 'Shrink') {
        events.push({
          key,
          type: 'Normal',
          reason: EVENT_TARGET_METRIC_REACHED,
          message: `the metric reached spec.qoe.targetMetric ${resolved.metric.value}: the job shrinks to its minimum workers`,
        });
      }
      if (resolved.stepsPerSecond === undefined && resolved.deadline === undefined) {
        if (this.#updateMetricOnly(key, job, describeQoeTarget(spec, resolved), metricReached === true, now)) changed.push(key);
        continue;
      }
      const reading: QoeReading =
        job.phase === 'running'
          ? (readQoe(job, now) ?? { class: 'Unknown', required: undefined, measured: undefined, gap: undefined })
          : { class: 'Unknown', required: undefined, measured: undefined, gap: undefined };
      const reachable = reading.unreachable === undefined;
      const message = job.phase === 'running' ? explain(reading) : 'waiting in the queue: no steps yet';
      const status: QoeStatus = {
        class: reading.class,
        since: prev !== undefined && prev.status.class === reading.class ? (prev.status.since ?? time(now)) : time(now),
        target: describeQoeTarget(spec, resolved),
        ...(reading.required === undefined ? {} : { requiredStepsPerSecond: decimal(reading.required) }),
        ...(reading.measured === undefined ? {} : { measuredStepsPerSecond: decimal(reading.measured) }),
        reachable,
        ...(metricReached === undefined ? {} : { targetMetricReached: metricReached }),
        message,
        conditions: [reachableCondition(reading, prev?.status.conditions?.[0], now)],
      };
      counts[reading.class] += 1;
      if (prev !== undefined && prev.status.class === 'Behind') behindSeconds.set(key, Math.max(0, now - prev.at) / 1000);
      const rewrite =
        prev === undefined ||
        prev.status.class !== status.class ||
        prev.reachable !== reachable ||
        prev.status.target !== status.target ||
        prev.status.targetMetricReached !== status.targetMetricReached ||
        moved(prev.status.requiredStepsPerSecond, status.requiredStepsPerSecond) ||
        moved(prev.status.measuredStepsPerSecond, status.measuredStepsPerSecond);
      const known = reading.class === 'Unknown' ? prev?.known : reading.class;
      if (known !== undefined && known !== prev?.known) {
        const reason = known === 'Ahead' ? EVENT_TARGET_AHEAD : known === 'Behind' ? EVENT_TARGET_BEHIND : EVENT_TARGET_MET;
        events.push({ key, type: 'Normal', reason, message: `${status.target}: ${message}` });
      }
      if (!reachable && (prev === undefined || prev.reachable)) {
        events.push({ key, type: 'Warning', reason: EVENT_TARGET_UNREACHABLE, message: `${status.target}: ${message}` });
      }
      const entry: Entry = { status: rewrite ? status : prev.status, reachable, at: now };
      if (known !== undefined) entry.known = known;
      this.#jobs.set(key, entry);
      if (rewrite) changed.push(key);
    }
    for (const key of [...this.#jobs.keys()]) {
      if (seen.has(key)) continue;
      this.#jobs.delete(key);
      changed.push(key);
    }
    return { changed, events, counts, behindSeconds };
  }

  forget(key: string): void {
    this.#jobs.delete(key);
  }
}
