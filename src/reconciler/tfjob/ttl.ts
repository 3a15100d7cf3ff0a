// runPolicy.ttlSecondsAfterFinished (tf-operator's CleanupJob + DurationUntilExpireTime).

import { parseTime } from './time.ts';

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
