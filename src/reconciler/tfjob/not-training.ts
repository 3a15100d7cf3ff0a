// NotTraining: a job whose pods all run but which reports no progress for longer than a threshold
// gets a verdict in `status.progress.notTraining`, one Warning event per verdict, and a Normal event
// when a progress line comes again. Pure: times, pods and the last progress line in, verdict out.
// Not a condition: tf-operator's State column and the Kubeflow SDK read the last condition as the
// job's state, and such a job is still Running (docs/differences-from-tf-operator.md).

import { ANNOTATION_TRAINING_STYLE, TRAINING_STYLES, TRAINING_STYLES_NEEDING_ALL_WORKERS } from '../../api/v1/constants.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { NotTraining, TFJob } from '../../api/v1/schema.ts';
import { normal, warning, type JobEvent } from './events.ts';
import { PHASE_FAILED, PHASE_RUNNING, PHASE_SUCCEEDED, isRemovedByOperator, isTerminating, ofReplicaType, podPhase } from './pod-state.ts';
import { formatTime, parseTime } from './time.ts';

export const EVENT_NOT_TRAINING = 'NotTraining';
export const EVENT_TRAINING_RESUMED = 'TrainingResumed';
export const REASON_WAITING_FOR_WORKERS = 'WaitingForWorkers';
export const REASON_NO_PROGRESS = 'NoProgress';

export interface TrainingFacts {
  readonly now: number;
  /** --not-training-after, ms; 0 = never judged. */
  readonly thresholdMs: number;
  /** The job's pods (controlled by it). */
  readonly pods: readonly Pod[];
  /** The declared training-style annotation, if any. */
  readonly style: string | undefined;
  /** Worker slots every replica's TF_CONFIG lists (the elastic maximum, or Worker.replicas). */
  readonly workerSlots: number;
  /** When the operator last read a progress line of the job (ms), however old; undefined: none seen. */
  readonly lastProgressAt: number | undefined;
  /** The verdict stored now, if any. */
  readonly previous: NotTraining | undefined;
}

export interface TrainingJudgement {
  readonly verdict?: NotTraining;
  readonly events: readonly JobEvent[];
  /** Come back then: the verdict falls due if nothing changes before. */
  readonly recheckAfterMs?: number;
}

/** The declared style when it is one the operator knows. */
export function declaredStyle(job: TFJob): string | undefined {
  const style = job.metadata.annotations?.[ANNOTATION_TRAINING_STYLE];
  return style !== undefined && TRAINING_STYLES.includes(style) ? style : undefined;
}

/** When the pod's containers last started (a restart in place counts), else when it became Ready. */
export function runningSince(pod: Pod): number | undefined {
  const started = (pod.status?.containerStatuses ?? []).map((s) => parseTime(s.state?.running?.startedAt));
  const known = started.filter((t): t is number => t !== undefined);
  if (known.length > 0) return Math.max(...known);
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  return parseTime(ready?.lastTransitionTime) ?? parseTime(pod.status?.startTime);
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 1 ? `${Number(m.toFixed(1))}m` : `${Math.round(ms / 1000)}s`;
}

/** Live pods (not terminating, not removed, not finished), or undefined when one is not Running. */
function runningPods(pods: readonly Pod[]): Pod[] | undefined {
  const live = pods.filter(
    (p) => !isTerminating(p) && !isRemovedByOperator(p) && podPhase(p) !== PHASE_SUCCEEDED && podPhase(p) !== PHASE_FAILED,
  );
  return live.length > 0 && live.every((p) => podPhase(p) === PHASE_RUNNING) ? live : undefined;
}

function describe(facts: TrainingFacts, running: readonly Pod[], silentSince: number, fromProgress: boolean): NotTraining {
  const quiet = `no progress line for over ${minutes(facts.thresholdMs)}`;
  const since = fromProgress
    ? `since the last one at ${formatTime(new Date(silentSince))}`
    : `since its last pod became Running at ${formatTime(new Date(silentSince))}`;
  const workers = ofReplicaType(running, REPLICA_TYPE_WORKER).length;
  const missing = workers < facts.workerSlots;
  const slots = `${workers} of ${facts.workerSlots} worker pods Running`;
  if (missing && facts.style !== undefined && TRAINING_STYLES_NEEDING_ALL_WORKERS.includes(facts.style)) {
    return {
      since: formatTime(new Date(silentSince)),
      reason: REASON_WAITING_FOR_WORKERS,
      message: `${facts.style} waits for every worker slot TF_CONFIG lists: ${slots}; ${quiet} ${since}`,
    };
  }
  // An undeclared chief may be a ParameterServerStrategy or MultiWorkerMirroredStrategy one waiting for the missing slots.
  const hint = missing ? `; ${slots} (a ParameterServerStrategy or MultiWorkerMirroredStrategy chief waits for every slot)` : '';
  return { since: formatTime(new Date(silentSince)), reason: REASON_NO_PROGRESS, message: `${quiet} ${since}${hint}` };
}

/**
 * Judged only when the threshold is on, every live pod is Running, and the job is known to report
 * progress: it printed a line once, or it declares a training style (others may never print).
 */
export function judgeTraining(facts: TrainingFacts): TrainingJudgement {
  const verdict = currentVerdict(facts);
  const events: JobEvent[] = [];
  const previous = facts.previous;
  if (verdict.verdict !== undefined && verdict.verdict.since !== previous?.since) {
    events.push(warning(EVENT_NOT_TRAINING, verdict.verdict.message));
  }
  const lastLine = facts.lastProgressAt;
  const previousSince = parseTime(previous?.since);
  if (verdict.verdict === undefined && previousSince !== undefined && lastLine !== undefined && lastLine > previousSince) {
    events.push(
      normal(
        EVENT_TRAINING_RESUMED,
        `A progress line came at ${formatTime(new Date(lastLine))}, after ${minutes(lastLine - previousSince)} without one`,
      ),
    );
  }
  return { ...verdict, events };
}

function currentVerdict(facts: TrainingFacts): { verdict?: NotTraining; recheckAfterMs?: number } {
  if (facts.thresholdMs <= 0) return {};
  if (facts.lastProgressAt === undefined && facts.style === undefined) return {};
  const running = runningPods(facts.pods);
  if (running === undefined) return {};
  const started = running.map(runningSince).filter((t): t is number => t !== undefined);
  if (started.length < running.length) return {};
  const lastRunning = Math.max(...started);
  const fromProgress = facts.lastProgressAt !== undefined && facts.lastProgressAt > lastRunning;
  const silentSince = fromProgress ? facts.lastProgressAt : lastRunning;
  const dueIn = silentSince + facts.thresholdMs - facts.now;
  // A second more: the status holds whole seconds, and a recheck a hair early would find nothing due.
  if (dueIn > 0) return { recheckAfterMs: dueIn + 1_000 };
  return { verdict: describe(facts, running, silentSince, fromProgress) };
}
