// The simulated jobs' progress signal: each job prints its evaluation metric when its work crosses a
// point of its curve (lab/workloads/progress-curve.ts), and the operator's own phase machine
// (src/progress/signals/phase.ts, the same code and defaults) turns those reports into the phase the
// scheduling core sees. Nothing else about the work reaches the core.
import { DEFAULT_PHASE_CONFIG, evaluatePhase, progressView } from '../../src/progress/signals/phase.ts';
import type { PhaseState } from '../../src/progress/signals/phase.ts';
import type { ProgressSample } from '../../src/progress/signals/protocol.ts';
import type { JobProgress } from '../../src/scheduler/types.ts';
import { accuracyPointIndex } from '../workloads/progress-curve.ts';
import type { WorkloadJob } from '../workloads/model.ts';

export class JobSignal {
  readonly #workload: WorkloadJob;
  readonly #accuracyIndex: number;
  #next = 0;
  #pending: ProgressSample[] = [];
  #state: PhaseState | undefined;
  /** When the job's metric first came within 1% of its final value (seconds), if it has. */
  accuracyAt: number | undefined;
  /** The newest line printed (time in ms), what a vertical rule reads as the job's evaluation series. */
  lastPrinted: ProgressSample | undefined;

  constructor(workload: WorkloadJob) {
    this.#workload = workload;
    this.#accuracyIndex = workload.curve === undefined ? -1 : accuracyPointIndex(workload.curve);
  }

  /**
   * The job's work went from `from` to `to` units, at `rate` units per second from time `t0`
   * (seconds): every point crossed prints a line, stamped when its work was reached.
   */
  advance(from: number, to: number, t0: number, rate: number): void {
    const curve = this.#workload.curve;
    if (curve === undefined || rate <= 0) return;
    for (let p = curve.points[this.#next]; p !== undefined && p.work <= to * (1 + 1e-12); p = curve.points[this.#next]) {
      const at = t0 + Math.max(0, p.work - from) / rate;
      if (this.#next === this.#accuracyIndex) this.accuracyAt ??= at;
      const sample: ProgressSample = {
        source: 'protocol',
        step: p.work,
        value: p.metric,
        name: curve.name,
        higherIsBetter: curve.higherIsBetter,
        time: at * 1000,
      };
      this.#pending.push(sample);
      this.lastPrinted = sample;
      this.#next += 1;
    }
  }

  /** The work at the last point the job printed (its step as the operator reads it); 0 before any. */
  get printedWork(): number {
    return this.#next === 0 ? 0 : (this.#workload.curve?.points[this.#next - 1]?.work ?? 0);
  }

  /** One evaluation round at `now` (seconds) over what was printed since the last one. */
  evaluate(now: number): void {
    if (this.#pending.length === 0) return;
    this.#state = evaluatePhase(this.#state, this.#pending, now * 1000, DEFAULT_PHASE_CONFIG);
    this.#pending = [];
  }

  /** What the core may see now; undefined while the job has printed nothing recent. */
  view(now: number): JobProgress | undefined {
    const v = progressView(this.#state, now * 1000, DEFAULT_PHASE_CONFIG);
    if (v === undefined) return undefined;
    // The share of its declared plan the job's last printed step is (src/progress/signals/plan.ts's fraction).
    const plan = this.#workload.plannedWork;
    return {
      phase: v.phase,
      since: v.since,
      ...(v.growth === undefined ? {} : { growth: v.growth }),
      ...(plan === undefined || plan <= 0 ? {} : { planDone: Math.min(1, this.printedWork / plan) }),
    };
  }
}
