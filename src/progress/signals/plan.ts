// A job's declared plan (how far it means to train) against where it is: the fraction done and an
// ETA from its measured step rate. The plan is what the job says — `spec.qoe.totalSteps`, the
// protocol's `totalSteps` or `epochs`, Keras's `Epoch k/N` — an upper bound (early stopping may end
// it sooner), never the true work. Pure: the caller passes the position, the plan and the rate.

export interface PlanInput {
  /** Latest global step and epoch the log gave. */
  readonly step?: number;
  readonly epoch?: number;
  /** From the log: planned epochs (`Epoch k/N`, protocol `epochs`) and steps (protocol `totalSteps`). */
  readonly epochs?: number;
  readonly totalSteps?: number;
  /** `spec.qoe.totalSteps`: what the user told the operator; it wins over the log's. */
  readonly specTotalSteps?: number;
  /** The measured rate with the present workers: steps per second, as of step `step` at time `to` (ms). */
  readonly rate?: { readonly stepsPerSecond: number; readonly step: number; readonly to: number };
}

export interface PlanProgress {
  readonly plannedEpochs?: number;
  readonly plannedSteps?: number;
  /** Share of the plan done, in [0, 1]. */
  readonly fraction: number;
  /** What the plan was stated in: steps (spec or protocol `totalSteps`) or epochs. */
  readonly basis: 'steps' | 'epochs';
  /** When the plan will be done at the measured rate (ms since the epoch); absent without a rate. */
  readonly etaMs?: number;
}

/**
 * Planned steps: stated, or planned epochs × steps per epoch (step ÷ epoch, as Keras counts them);
 * undefined when neither is known.
 */
export function plannedSteps(input: PlanInput): number | undefined {
  const stated = input.specTotalSteps ?? input.totalSteps;
  if (stated !== undefined) return stated;
  const { epochs, step, epoch } = input;
  if (epochs === undefined || step === undefined || epoch === undefined || epoch <= 0 || step <= 0) return undefined;
  return Math.round((epochs * step) / epoch);
}

/** The plan's progress, or undefined when the job declared no plan (or gave no position in it). */
export function planProgress(input: PlanInput): PlanProgress | undefined {
  const steps = plannedSteps(input);
  const epochs = input.epochs;
  let fraction: number | undefined;
  if (steps !== undefined && input.step !== undefined) fraction = input.step / steps;
  else if (epochs !== undefined && input.epoch !== undefined) fraction = input.epoch / epochs;
  if (fraction === undefined || !Number.isFinite(fraction)) return undefined;
  fraction = Math.min(1, Math.max(0, fraction));
  const rate = input.rate;
  let etaMs: number | undefined;
  if (steps !== undefined && rate !== undefined && rate.stepsPerSecond > 0) {
    etaMs = rate.to + (Math.max(0, steps - rate.step) / rate.stepsPerSecond) * 1000;
  }
  return {
    ...(epochs !== undefined ? { plannedEpochs: epochs } : {}),
    ...(steps !== undefined ? { plannedSteps: steps } : {}),
    fraction,
    basis: (input.specTotalSteps ?? input.totalSteps) !== undefined || epochs === undefined ? 'steps' : 'epochs',
    ...(etaMs !== undefined && Number.isFinite(etaMs) ? { etaMs: Math.round(etaMs) } : {}),
  };
}

/** `3/90 epochs (3%)` or `1200/10000 steps (12%)`: the printer column's text. */
export function planSummary(plan: PlanProgress, step: number | undefined, epoch: number | undefined): string {
  const percent = `${Math.floor(plan.fraction * 100)}%`;
  if (plan.basis === 'epochs' && epoch !== undefined) return `${Math.round(epoch)}/${plan.plannedEpochs} epochs (${percent})`;
  if (plan.basis === 'steps' && step !== undefined) return `${Math.round(step)}/${plan.plannedSteps} steps (${percent})`;
  return percent;
}
