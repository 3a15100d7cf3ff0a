// The report stage of a scheduling pass, events and metrics: tell people what was decided. Every
// outcome a user would ask about ("why is my job waiting?", "who took my workers?") becomes a
// Kubernetes Event on the job, and the pass moves the scheduler's Prometheus metrics. Waiting and
// Starving events are rate-limited per job: the reason text changes often while a job waits.
import type { EventRecorder } from '../../../runtime/events.ts';
import { splitKey } from '../../../runtime/store.ts';
import type { Applied, Outcome, OutcomeReason } from './apply.ts';
import type { DecisionBook } from '../decisions/book.ts';
import type { SchedulerMetrics } from '../metrics.ts';
import type { QoeUpdate } from './report-qoe.ts';
import type { JobFacts, PlacedElsewhere } from './snapshot.ts';
import { PLACED_BY_SCHEDULER } from '../decisions/elsewhere.ts';
import { describeSchedulers } from '../../../reconciler/tfjob/index.ts';

/** At most one Waiting/Starving event per job per this interval (the reason text changes often). */
export const WAITING_EVENT_INTERVAL_MS = 60_000;

const WARNINGS: ReadonlySet<OutcomeReason> = new Set(['NodeLost', 'RefusedByScheduler', 'Starving']);
/** The events.k8s.io `action` of each outcome. */
const ACTIONS: Readonly<Record<OutcomeReason, string>> = {
  NodeLost: 'Schedule',
  RefusedByScheduler: 'Schedule',
  Suspended: 'Preempt',
  Preempted: 'Preempt',
  ScaledIn: 'Scale',
  Admitted: 'Schedule',
  ScaledOut: 'Scale',
  Placed: 'Schedule',
  Waiting: 'Schedule',
  Starving: 'Schedule',
};

export class SchedulingReporter {
  readonly #recorder: EventRecorder;
  readonly #metrics: SchedulerMetrics;
  /** When, and of which kind, each job's last Waiting/Starving event was. */
  readonly #lastWaiting = new Map<string, { readonly at: number; readonly kind: string }>();
  /** Jobs told which scheduler places them, by key, with their UID (a job recreated is told again). */
  readonly #toldElsewhere = new Map<string, string>();

  constructor(recorder: EventRecorder, metrics: SchedulerMetrics) {
    this.#recorder = recorder;
    this.#metrics = metrics;
  }

  /** Events and counters for what a pass did. */
  outcomes(applied: Applied, facts: readonly JobFacts[], now: number): void {
    const objects = new Map(facts.map((f) => [f.key, f.object]));
    for (const o of applied.outcomes) {
      const object = objects.get(o.job);
      if (object === undefined) continue;
      const namespace = namespaceOf(o.job);
      switch (o.reason) {
        case 'Suspended':
        case 'Preempted':
        case 'ScaledIn':
          this.#metrics.preemptedWorkers.inc({ namespace }, o.workers ?? 0);
          break;
        case 'Admitted':
          this.#metrics.admissions.inc({ namespace });
          this.#metrics.timeInQueue.observe({ namespace }, Math.max(0, (o.waitedMs ?? 0) / 1000));
          break;
        case 'ScaledOut':
          this.#metrics.scaledOutWorkers.inc({ namespace }, o.workers ?? 0);
          break;
        case 'Placed':
          this.#metrics.placementRepairs.inc({ namespace });
          break;
        case 'Waiting':
        case 'Starving':
          if (!this.#waitingEventDue(o, now)) continue;
          break;
        case 'NodeLost':
        case 'RefusedByScheduler':
          break;
      }
      this.#recorder.event(object, WARNINGS.has(o.reason) ? 'Warning' : 'Normal', o.reason, o.message, ACTIONS[o.reason]);
    }
  }

  /**
   * At most one Waiting/Starving event per job per interval, and none for what the job's status
   * already says after a restart (the previous leader reported it).
   */
  #waitingEventDue(o: Outcome, now: number): boolean {
    const last = this.#lastWaiting.get(o.job);
    if (last === undefined && o.news === false) {
      this.#lastWaiting.set(o.job, { at: now, kind: o.reason });
      return false;
    }
    if (last !== undefined && last.kind === o.reason && now - last.at < WAITING_EVENT_INTERVAL_MS) return false;
    this.#lastWaiting.set(o.job, { at: now, kind: o.reason });
    return true;
  }

  /** Once per job: its pods are left to the schedulers its templates name ("why is my job not queued?"). */
  placedElsewhere(jobs: readonly PlacedElsewhere[]): void {
    for (const j of jobs) {
      const uid = j.object.metadata?.uid ?? '';
      if (this.#toldElsewhere.get(j.key) === uid) continue;
      this.#toldElsewhere.set(j.key, uid);
      this.#recorder.event(j.object, 'Normal', PLACED_BY_SCHEDULER, describeSchedulers(j.named), 'Schedule');
    }
  }

  /** Queue lengths and per-job weights after a pass. */
  queues(facts: readonly JobFacts[], book: DecisionBook, finishedJobs: number, passSeconds: number): void {
    this.#metrics.passDuration.observe(passSeconds);
    let waiting = 0;
    let running = 0;
    for (const f of facts) {
      const d = book.get(f.key);
      const { namespace = '', name: tfjob } = splitKey(f.key);
      const queue = d?.admitted === true ? 'running' : 'waiting';
      if (queue === 'running') running += 1;
      else waiting += 1;
      if (d?.weight !== undefined) {
        this.#metrics.jobWeight.set({ namespace, tfjob, queue }, d.weight);
        this.#metrics.jobWeight.remove({ namespace, tfjob, queue: queue === 'running' ? 'waiting' : 'running' });
      }
    }
    this.#metrics.queueLength.set({ queue: 'waiting' }, waiting);
    this.#metrics.queueLength.set({ queue: 'running' }, running);
    this.#metrics.queueLength.set({ queue: 'finished' }, finishedJobs);
  }

  /** Performance targets after a pass: events on class changes, |S|/|G|/|B| and time behind. */
  qoe(update: QoeUpdate, facts: readonly JobFacts[]): void {
    const objects = new Map(facts.map((f) => [f.key, f.object]));
    for (const e of update.events) {
      const object = objects.get(e.key);
      if (object !== undefined) this.#recorder.event(object, e.type, e.reason, e.message, 'Scale');
    }
    for (const [cls, n] of Object.entries(update.counts)) this.#metrics.qoeJobs.set({ class: cls }, n);
    for (const [key, seconds] of update.behindSeconds) {
      const { namespace = '', name: tfjob } = splitKey(key);
      this.#metrics.qoeBehindSeconds.inc({ namespace, tfjob }, seconds);
    }
  }

  /** The job is gone: its series end. */
  forget(key: string): void {
    this.#lastWaiting.delete(key);
    this.#toldElsewhere.delete(key);
    const { namespace = '', name: tfjob } = splitKey(key);
    this.#metrics.qoeBehindSeconds.remove({ namespace, tfjob });
    this.#metrics.jobWeight.remove({ namespace, tfjob, queue: 'waiting' });
    this.#metrics.jobWeight.remove({ namespace, tfjob, queue: 'running' });
  }
}

function namespaceOf(key: string): string {
  return splitKey(key).namespace ?? '';
}
