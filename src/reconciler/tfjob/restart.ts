// What to do with a replica pod in phase Failed (tf-operator's ReconcilePods), and what its exit code
// means under the ExitCode restart policy (tf-operator's `IsRetryableExitCode`): 1–127 are the
// program's own failures and are permanent; 128+ are signals (OOM kill 137, SIGTERM 143, preemption)
// and are retried. 0xbeef stands for "no terminated state seen" and is retried too.

import { RESTART_POLICY_ALWAYS, RESTART_POLICY_EXIT_CODE, RESTART_POLICY_ON_FAILURE } from '../../api/v1/policies.ts';

/** tf-operator's placeholder exit code when the tensorflow container has no terminated state. */
export const UNKNOWN_EXIT_CODE = 0xbeef;

export type ExitCodeClass = 'success' | 'permanent' | 'retryable';

export function isRetryableExitCode(exitCode: number): boolean {
  return exitCode >= 128;
}

export function classifyExitCode(exitCode: number): ExitCodeClass {
  if (exitCode === 0) return 'success';
  return isRetryableExitCode(exitCode) ? 'retryable' : 'permanent';
}

/**
 * - `restart`: delete the pod so the next reconcile creates it again under the same name
 *   (OnFailure, Always, or ExitCode with a retryable code, including "unknown" 0xbeef);
 * - `fail`: the job fails now (ExitCode with a permanent code 0–127);
 * - `none`: Never — the failure is counted and the status decision fails the job.
 */
export type FailedPodDecision = 'restart' | 'fail' | 'none';

export function decideFailedPod(restartPolicy: string, exitCode: number): FailedPodDecision {
  if (restartPolicy === RESTART_POLICY_ON_FAILURE || restartPolicy === RESTART_POLICY_ALWAYS) return 'restart';
  if (restartPolicy === RESTART_POLICY_EXIT_CODE) return isRetryableExitCode(exitCode) ? 'restart' : 'fail';
  return 'none';
}
