// Stage 4 of a scheduling pass: tell people what was decided. Every outcome a user would ask about
// ("why is my job waiting?", "who took my workers?") becomes a Kubernetes Event on the job, and the
// pass moves the scheduler's Prometheus metrics. Waiting and Starving events are rate-limited per
// job: the reason text changes often while a job waits.
import type { Plan, ReplicaInstance } from '../../scheduler/index.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { Applied } from './apply.ts';
import type { DecisionBook } from './decisions.ts';
import type { SchedulerMetrics } from './metrics.ts';
import type { JobFacts } from './snapshot.ts';

/** At most one Waiting/Starving event per job per this interval (the reason text changes often). */
export const WAITING_EVENT_INTERVAL_MS = 60_000;

export interface ReportOptions {
  /** A job that waited this long was admitted as starving (said in its Admitted event). */
  readonly starveLimitMs: number;
  /** Simulated time runs this many times faster than real time (demo); waits are shown in simulated seconds. */
  readonly timeScale: number;
}

export class SchedulingReporter {
  readonly #recorder: EventRecorder;
  readonly #metrics: SchedulerMetrics;
  readonly #options: ReportOptions;
  /** When, and of which kind, each job's last Waiting/Starving event was. */
  readonly #lastWaiting = new Map<string, { readonly at: number; readonly kind: string }>();

  constructor(recorder: EventRecorder, metrics: SchedulerMetrics, options: ReportOptions) {
    this.#recorder = recorder;
    this.#metrics = metrics;
    this.#options = options;
  }

  /** Events and counters for what a pass did. */
  outcomes(applied: Applied, facts: readonly JobFacts[], weights: Plan['weights'], now: number): void {
    const objects = new Map(facts.map((f) => [f.key, f.object]));
    for (const o of applied.outcomes) {
      const object = objects.get(o.job);
      if (object === undefined) continue;
      const namespace = namespaceOf(o.job);
      switch (o.kind) {
        case 'nodeLost':
          this.#recorder.event(
            object,
            'Warning',
            'NodeLost',
            `Removed ${o.pod}: its node ${o.node} ${o.why}; it will be placed again`,
            'Schedule',
          );
          break;
        case 'scaledIn': {
          this.#metrics.preemptedWorkers.inc({ namespace }, o.count);
          const what = `${o.count} worker(s)${o.removed.length > 0 ? ` (${o.removed.join(', ')})` : ''}`;
          if (o.forJob !== undefined) {
            const vs = `weight ${fmt(weights[o.forJob])} vs ${fmt(weights[o.job])}`;
            const message = `Scaled in by ${what} to admit ${o.forJob} (${vs}); now ${o.workers} worker(s), minimum ${o.min}`;
            this.#recorder.event(object, 'Normal', 'Preempted', message, 'Preempt');
          } else {
            this.#recorder.event(object, 'Normal', 'ScaledIn', `Scaled in by ${what}; now ${o.workers} worker(s)`, 'Scale');
          }
          break;
        }
        case 'admitted': {
          this.#metrics.admissions.inc({ namespace });
          this.#metrics.timeInQueue.observe({ namespace }, Math.max(0, o.waitedMs / 1000));
          const starving =
            o.waitedMs >= this.#options.starveLimitMs
              ? `, starving after waiting ${Math.round((o.waitedMs * this.#options.timeScale) / 1000)}s`
              : '';
          const message = `Admitted with ${o.workers} worker(s) (weight ${fmt(weights[o.job])}${starving}) on ${summarizeNodes(o.replicas)}`;
          this.#recorder.event(object, 'Normal', 'Admitted', message, 'Schedule');
          break;
        }
        case 'scaledOut':
          this.#metrics.scaledOutWorkers.inc({ namespace }, o.added.length);
          this.#recorder.event(
            object,
            'Normal',
            'ScaledOut',
            `Scaled out by ${o.added.length} worker(s) into idle capacity on ${summarizeNodes(o.added)}; now ${o.workers} worker(s), maximum ${o.max}`,
            'Scale',
          );
          break;
        case 'placed':
          this.#metrics.placementRepairs.inc({ namespace });
          this.#recorder.event(
            object,
            'Normal',
            'Placed',
            `Placed ${o.name ?? 'a replacement worker'} on ${o.node} (replacing a lost replica)`,
            'Schedule',
          );
          break;
        case 'waiting': {
          const kind = o.starving ? 'Starving' : 'Waiting';
          const last = this.#lastWaiting.get(o.job);
          if (last === undefined || last.kind !== kind || now - last.at >= WAITING_EVENT_INTERVAL_MS) {
            this.#lastWaiting.set(o.job, { at: now, kind });
            this.#recorder.event(object, kind === 'Starving' ? 'Warning' : 'Normal', kind, o.reason, 'Schedule');
          }
          break;
        }
      }
    }
  }

  /** Queue lengths and per-job weights after a pass. */
  queues(facts: readonly JobFacts[], book: DecisionBook, finishedJobs: number, passSeconds: number): void {
    this.#metrics.passDuration.observe(passSeconds);
    let waiting = 0;
    let running = 0;
    for (const f of facts) {
      const d = book.get(f.key);
      const [namespace = '', tfjob = ''] = f.key.split('/');
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

  /** The job is gone: its series end. */
  forget(key: string): void {
    this.#lastWaiting.delete(key);
    const [namespace = '', tfjob = ''] = key.split('/');
    this.#metrics.jobWeight.remove({ namespace, tfjob, queue: 'waiting' });
    this.#metrics.jobWeight.remove({ namespace, tfjob, queue: 'running' });
  }
}

function namespaceOf(key: string): string {
  return key.split('/')[0] ?? '';
}

/** `node-a (ps-0, worker-0), node-b (worker-1)`. */
export function summarizeNodes(replicas: readonly ReplicaInstance[]): string {
  const byNode = new Map<string, string[]>();
  for (const r of replicas) {
    if (r.node === undefined) continue;
    byNode.set(r.node, [...(byNode.get(r.node) ?? []), `${r.type.toLowerCase()}-${r.index}`]);
  }
  return [...byNode].map(([node, names]) => `${node} (${names.join(', ')})`).join(', ');
}

function fmt(weight: number | undefined): string {
  return weight === undefined ? '?' : weight.toFixed(2);
}
