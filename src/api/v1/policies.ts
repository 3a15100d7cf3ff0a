// The string values of TFJob's policy fields. The upstream CRD leaves them free-form; ours restricts
// them to these values (see docs/differences-from-tf-operator.md).

export const RESTART_POLICY_ALWAYS = 'Always';
export const RESTART_POLICY_ON_FAILURE = 'OnFailure';
export const RESTART_POLICY_NEVER = 'Never';
/** Restart on retryable exit codes (128–255) only; the pod itself gets restartPolicy Never. */
export const RESTART_POLICY_EXIT_CODE = 'ExitCode';
export const RESTART_POLICIES = [RESTART_POLICY_ALWAYS, RESTART_POLICY_ON_FAILURE, RESTART_POLICY_NEVER, RESTART_POLICY_EXIT_CODE] as const;
export type RestartPolicy = (typeof RESTART_POLICIES)[number];
export const DEFAULT_RESTART_POLICY: RestartPolicy = RESTART_POLICY_NEVER;

export const CLEAN_POD_POLICY_ALL = 'All';
export const CLEAN_POD_POLICY_RUNNING = 'Running';
export const CLEAN_POD_POLICY_NONE = 'None';
export const CLEAN_POD_POLICIES = [CLEAN_POD_POLICY_ALL, CLEAN_POD_POLICY_RUNNING, CLEAN_POD_POLICY_NONE] as const;
export type CleanPodPolicy = (typeof CLEAN_POD_POLICIES)[number];
/** Default since tf-operator v1.6 (it was Running before). */
export const DEFAULT_CLEAN_POD_POLICY: CleanPodPolicy = CLEAN_POD_POLICY_NONE;

/** Default success rule: the job succeeds when worker 0 (or the chief/master) succeeds. */
export const SUCCESS_POLICY_DEFAULT = '';
export const SUCCESS_POLICY_ALL_WORKERS = 'AllWorkers';
export const SUCCESS_POLICIES = [SUCCESS_POLICY_DEFAULT, SUCCESS_POLICY_ALL_WORKERS] as const;
