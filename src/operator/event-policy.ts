// Which of the operator's events the recorder treats specially (src/runtime/events.ts). tf-operator's
// client-go recorder drops every event of a job past its 25th (spam filter; docs/
// differences-from-tf-operator.md): a long or eventful job then ends without its TFJobSucceeded event.
import {
  EVENT_FAILED,
  EVENT_FAILED_VALIDATION,
  EVENT_SUCCEEDED,
  EVENT_SUCCESSFUL_CREATE_POD,
  EVENT_SUCCESSFUL_CREATE_SERVICE,
  EVENT_SUCCESSFUL_DELETE_POD,
  EVENT_SUCCESSFUL_DELETE_SERVICE,
} from '../reconciler/tfjob/events.ts';

/** Thousands of these under a burst; a decision, a failure or a job's end must not drop with them. */
export const ROUTINE_EVENT_REASONS: ReadonlySet<string> = new Set([
  EVENT_SUCCESSFUL_CREATE_POD,
  EVENT_SUCCESSFUL_CREATE_SERVICE,
  EVENT_SUCCESSFUL_DELETE_POD,
  EVENT_SUCCESSFUL_DELETE_SERVICE,
]);

/**
 * A job's end, never held back by the per-object spam filter: each happens once per job, so it
 * cannot flood, and it is the event a user looks for.
 */
export const UNFILTERED_EVENT_REASONS: ReadonlySet<string> = new Set([EVENT_SUCCEEDED, EVENT_FAILED, EVENT_FAILED_VALIDATION]);
