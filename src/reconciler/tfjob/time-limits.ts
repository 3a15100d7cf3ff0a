// runPolicy.activeDeadlineSeconds, counted from status.startTime (reset on resume, so suspended time
// does not count).

import { parseTime } from './time.ts';

export function pastActiveDeadline(activeDeadlineSeconds: number | undefined, startTime: string | undefined, now: Date): boolean {
  const start = parseTime(startTime);
  if (activeDeadlineSeconds === undefined || start === undefined) return false;
  return now.getTime() - start >= activeDeadlineSeconds * 1000;
}

/**
 * Milliseconds until the deadline (0 when already past), or undefined without one. tf-operator meant to
 * requeue at the deadline but its queue dropped the request (issue #3358); the caller requeues with this.
 */
export function untilActiveDeadline(
  activeDeadlineSeconds: number | undefined,
  startTime: string | undefined,
  now: Date,
): number | undefined {
  const start = parseTime(startTime);
  if (activeDeadlineSeconds === undefined || start === undefined) return undefined;
  return Math.max(0, start + activeDeadlineSeconds * 1000 - now.getTime());
}
