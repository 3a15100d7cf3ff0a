// Job condition types and reasons, verbatim from tf-operator: clients read `status.conditions[-1]`
// (kubectl's State column, Kubeflow Pipelines) and match these exact strings.

export const CONDITION_CREATED = 'Created';
export const CONDITION_RUNNING = 'Running';
export const CONDITION_RESTARTING = 'Restarting';
export const CONDITION_SUCCEEDED = 'Succeeded';
export const CONDITION_FAILED = 'Failed';
export const CONDITION_SUSPENDED = 'Suspended';
export type ConditionType =
  | typeof CONDITION_CREATED
  | typeof CONDITION_RUNNING
  | typeof CONDITION_RESTARTING
  | typeof CONDITION_SUCCEEDED
  | typeof CONDITION_FAILED
  | typeof CONDITION_SUSPENDED;

export const CONDITION_TRUE = 'True';
export const CONDITION_FALSE = 'False';
export const CONDITION_UNKNOWN = 'Unknown';
export type ConditionStatus = typeof CONDITION_TRUE | typeof CONDITION_FALSE | typeof CONDITION_UNKNOWN;

/** tf-operator builds every reason as `<Kind><reason>`. */
export const REASON_CREATED = 'TFJobCreated';
export const REASON_RUNNING = 'TFJobRunning';
export const REASON_RESTARTING = 'TFJobRestarting';
export const REASON_SUCCEEDED = 'TFJobSucceeded';
export const REASON_FAILED = 'TFJobFailed';
export const REASON_SUSPENDED = 'TFJobSuspended';
export const REASON_RESUMED = 'TFJobResumed';
/**
 * Ours: the spec cannot be run (a check the upstream webhook did, or one the CRD cannot express).
 * Same text as tf-operator v1.7's event reason for the same situation.
 */
export const REASON_FAILED_VALIDATION = 'TFJobFailedValidation';
