import { describe, expect, it } from 'vitest';
import { conditionFor } from '../../../../src/reconciler/tfjob/condition-constructors.ts';
import { at } from './builders.ts';

const now = at(0);
const shape = (c: { type: string; status: string; reason?: string; message?: string }) => [c.type, c.status, c.reason, c.message];

describe('condition constructors: exact reasons and messages (compat §1.5 table)', () => {
  it.each([
    [conditionFor.created('dist', now), ['Created', 'True', 'TFJobCreated', 'TFJob dist is created.']],
    [conditionFor.running('ml', 'dist', now), ['Running', 'True', 'TFJobRunning', 'TFJob ml/dist is running.']],
    [conditionFor.runningSuspended('dist', now), ['Running', 'False', 'TFJobSuspended', 'TFJob dist is suspended.']],
    [
      conditionFor.restarting('dist', 'Worker', now),
      ['Restarting', 'True', 'TFJobRestarting', 'job dist is restarting because Worker replica(s) failed.'],
    ],
    [conditionFor.succeeded('ml', 'dist', now), ['Succeeded', 'True', 'TFJobSucceeded', 'TFJob ml/dist successfully completed.']],
    [
      conditionFor.failedReplicas('ml', 'dist', 2, 'PS', now),
      ['Failed', 'True', 'TFJobFailed', 'TFJob ml/dist has failed because 2 PS replica(s) failed.'],
    ],
    [
      conditionFor.failedExitCode('dist', 'Worker', now),
      ['Failed', 'True', 'TFJobFailed', 'job "dist" is failing because "Worker" replica(s) failed.'],
    ],
    [
      conditionFor.failedBackoffLimit('dist', now),
      ['Failed', 'True', 'TFJobFailed', 'Job dist has failed because it has reached the specified backoff limit'],
    ],
    [
      conditionFor.failedActiveDeadline('dist', now),
      ['Failed', 'True', 'TFJobFailed', 'Job dist has failed because it was active longer than specified deadline'],
    ],
    [conditionFor.suspended('dist', now), ['Suspended', 'True', 'TFJobSuspended', 'TFJob dist is suspended.']],
    [conditionFor.resumed('dist', now), ['Suspended', 'False', 'TFJobResumed', 'TFJob dist is resumed.']],
    [
      conditionFor.failedValidation('x: Required value', now),
      ['Failed', 'True', 'TFJobFailedValidation', 'TFJob failed validation because x: Required value'],
    ],
  ])('%#', (condition, expected) => {
    expect(shape(condition)).toEqual(expected);
    expect(condition.lastUpdateTime).toBe('2024-09-10T10:00:00Z');
    expect(condition.lastTransitionTime).toBe('2024-09-10T10:00:00Z');
  });
});
