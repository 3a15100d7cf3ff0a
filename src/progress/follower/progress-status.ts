// `status.progress` as the reconciler writes it, from the reader's view of a job: decimal strings,
// whole-second times, and with a declared plan (the log's, or `spec.qoe.totalSteps`) the planned
// epochs/steps, the share done and an ETA.
import type { ProgressStatus } from '../../api/v1/schema.ts';
import { planProgress, planSummary, type MeasuredRate, type PlanInput, type ProgressView } from '../signals/index.ts';

const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const decimal = (x: number) => String(Number(x.toPrecision(6)));

/**
 * `status.progress` from what the reader knows (decimal strings, whole-second times); with a declared
 * plan (the log's, or `spec.qoe.totalSteps`) also the planned epochs/steps, the share done and an ETA
 * from `rate`, the rate measured with the present workers.
 */
export function progressStatus(v: ProgressView, specTotalSteps?: number, rate?: MeasuredRate): ProgressStatus {
  return { ...viewStatus(v), ...planStatus(v, specTotalSteps, rate) };
}

/** Where the job is in its plan, as the log gave it. */
export function planInputOf(v: ProgressView): PlanInput {
  const { step, epoch, epochs, totalSteps } = v;
  return {
    ...(step !== undefined ? { step } : {}),
    ...(epoch !== undefined ? { epoch } : {}),
    ...(epochs !== undefined ? { epochs } : {}),
    ...(totalSteps !== undefined ? { totalSteps } : {}),
  };
}

function planStatus(v: ProgressView, specTotalSteps: number | undefined, rate: MeasuredRate | undefined): ProgressStatus {
  const plan = planProgress({
    ...planInputOf(v),
    ...(specTotalSteps !== undefined ? { specTotalSteps } : {}),
    ...(rate !== undefined ? { rate } : {}),
  });
  if (plan === undefined) return {};
  return {
    ...(plan.plannedEpochs !== undefined ? { plannedEpochs: plan.plannedEpochs } : {}),
    ...(plan.plannedSteps !== undefined ? { plannedSteps: plan.plannedSteps } : {}),
    fractionDone: decimal(Math.floor(plan.fraction * 1000) / 1000),
    // A diverged job's rate says nothing about when it ends.
    ...(plan.etaMs !== undefined && v.phase !== 'Diverged' ? { eta: time(plan.etaMs) } : {}),
    plan: planSummary(plan, v.step, v.epoch),
  };
}

function viewStatus(v: ProgressView): ProgressStatus {
  return {
    phase: v.phase,
    since: time(v.since),
    // A job that diverged before any finite value has no metric to show.
    ...(Number.isFinite(v.metric) ? { metric: decimal(v.metric) } : {}),
    ...(v.latest !== undefined ? { latest: decimal(v.latest) } : {}),
    metricName: v.name,
    higherIsBetter: v.higherIsBetter,
    ...(v.growth === undefined ? {} : { growth: decimal(v.growth) }),
    ...(v.step === undefined ? {} : { step: Math.round(v.step) }),
    ...(v.epoch === undefined ? {} : { epoch: Math.round(v.epoch) }),
    lastUpdate: time(v.lastUpdate),
  };
}
