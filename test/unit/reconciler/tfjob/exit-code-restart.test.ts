import { describe, expect, it } from 'vitest';
import { classifyExitCode, isRetryableExitCode, UNKNOWN_EXIT_CODE, decideFailedPod } from '../../../../src/reconciler/tfjob/restart.ts';
import { podRestartPolicy } from '../../../../src/reconciler/tfjob/pod-builder.ts';

describe('exit-code classification (ExitCode restart policy)', () => {
  it.each([
    [0, 'success'],
    [1, 'permanent'],
    [2, 'permanent'],
    [127, 'permanent'],
    [128, 'retryable'],
    [130, 'retryable'],
    [137, 'retryable'],
    [143, 'retryable'],
    [255, 'retryable'],
    [UNKNOWN_EXIT_CODE, 'retryable'],
  ] as const)('%i is %s', (code, expected) => {
    expect(classifyExitCode(code)).toBe(expected);
  });

  it('0xbeef is the "no terminated state" placeholder and is retryable', () => {
    expect(UNKNOWN_EXIT_CODE).toBe(48879);
    expect(isRetryableExitCode(UNKNOWN_EXIT_CODE)).toBe(true);
  });
});

describe('what happens to a Failed pod (legacy replica_restart_policy_tests)', () => {
  it.each([
    ['Always', 0, 'restart'],
    ['Always', 1, 'restart'],
    ['OnFailure', 1, 'restart'],
    ['Never', 1, 'none'],
    ['Never', 0, 'none'],
    ['ExitCode', 1, 'fail'],
    ['ExitCode', 130, 'restart'],
    ['ExitCode', 0, 'fail'],
    ['ExitCode', UNKNOWN_EXIT_CODE, 'restart'],
  ] as const)('%s with exit %i → %s', (policy, code, expected) => {
    expect(decideFailedPod(policy, code)).toBe(expected);
  });
});

describe('pod restart policy (Test Restart Policy, compat §5.1 item 13)', () => {
  it.each([
    ['ExitCode', 'Never'],
    ['Never', 'Never'],
    ['Always', 'Always'],
    ['OnFailure', 'OnFailure'],
  ])('replica %s → pod %s', (replica, pod) => {
    expect(podRestartPolicy(replica)).toBe(pod);
  });
});
