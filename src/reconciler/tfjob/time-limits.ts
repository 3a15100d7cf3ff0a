// The run policy's time limits: activeDeadlineSeconds, counted from status.startTime (reset on resume,
// so suspended time does not count), and ttlSecondsAfterFinished (tf-operator's CleanupJob +
// DurationUntilExpireTime).

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

export type TtlDecision = { readonly kind: 'keep' } | { readonly kind: 'delete' } | { readonly kind: 'requeue'; readonly afterMs: number };

/**
 * No TTL, or a suspended job (the fix of issue #2239): keep. Otherwise delete once
 * `now >= completionTime + ttl` (tf-operator waits for strictly after; at the exact second it requeued
 * for 0 s and deleted on the next pass), else requeue for the remaining time.
 */
export function ttlDecision(
  ttlSecondsAfterFinished: number | undefined,
  suspended: boolean,
  completionTime: string | undefined,
  now: Date,
): TtlDecision {
  const completed = parseTime(completionTime);
  if (ttlSecondsAfterFinished === undefined || suspended || completed === undefined) return { kind: 'keep' };
  const expiry = completed + ttlSecondsAfterFinished * 1000;
  return now.getTime() >= expiry ? { kind: 'delete' } : { kind: 'requeue', afterMs: expiry - now.getTime() };
}
