// What to do with a replica pod in phase Failed (tf-operator's ReconcilePods).

import { RESTART_POLICY_ALWAYS, RESTART_POLICY_EXIT_CODE, RESTART_POLICY_ON_FAILURE } from '../../api/v1/policies.ts';
import { isRetryableExitCode } from './exit-code.ts';

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
