// Waiting until our operator process is idle, from its own /metrics: its work queue is empty and
// neither reconciles nor API requests have moved for a while (the initial level-triggered reconcile
// of every job after a start is over).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sample } from '../../test/support/prometheus.ts';
import { sumBy } from './prom.ts';

function activity(samples: readonly Sample[]): { depth: number; reconciles: number; requests: number } {
  return {
    depth: Object.values(
      sumBy(
        samples.filter((s) => s.labels.name === 'tfjob-controller'),
        'workqueue_depth',
        '',
      ),
    ).reduce((a, b) => a + b, 0),
    reconciles: sumBy(samples, 'controller_runtime_reconcile_total', '').total ?? 0,
    requests: sumBy(samples, 'rest_client_requests_total', '').total ?? 0,
  };
}

/** Resolves with the seconds waited once the operator was idle for `stableMs`; throws after `timeoutMs`. */
export async function waitForQuiescence(
  metrics: () => Promise<Sample[]>,
  opts: { stableMs?: number; timeoutMs?: number } = {},
): Promise<number> {
  const stableMs = opts.stableMs ?? 10_000;
  const start = performance.now();
  const deadline = start + (opts.timeoutMs ?? 1_800_000);
  let last = activity(await metrics());
  let since = performance.now();
  for (;;) {
    await sleep(1_000);
    const now = activity(await metrics());
    if (now.depth > 0 || now.reconciles !== last.reconciles || now.requests !== last.requests) since = performance.now();
    last = now;
    if (performance.now() - since >= stableMs) return (performance.now() - start) / 1000;
    if (performance.now() > deadline)
      throw new Error(`operator not idle after ${(opts.timeoutMs ?? 1_800_000) / 1000} s (queue depth ${now.depth})`);
  }
}
