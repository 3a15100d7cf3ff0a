// Exit-code semantics of the ExitCode restart policy (tf-operator's `IsRetryableExitCode`):
// 1–127 are the program's own failures and are permanent; 128+ are signals (OOM kill 137, SIGTERM
// 143, preemption) and are retried. 0xbeef stands for "no terminated state seen" and is retried too.

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
