// `growBeforeAdmit` (gain.ts): before any admission, running jobs take the workers that buy more
// normalised speed per unit of share than the best waiting job of their class would with its
// minimum configuration. Never while a job starves (its bound relies on KOD2's order).

import { admissionGainDensity, growBeforeAdmitLimit } from '../../model/gain.ts';
import { growRunning } from '../../session/growth.ts';
import type { Action, PassSession } from '../../session/session.ts';

/** The best admission value per priority class; a waiting job without a known value counts as infinite. */
function bestAdmissionPerClass(session: PassSession): Map<number, number> {
  const best = new Map<number, number>();
  for (const job of session.model.waiting) {
    const d = admissionGainDensity(session.state, job) ?? Number.POSITIVE_INFINITY;
    if (d <= (best.get(job.priority) ?? Number.NEGATIVE_INFINITY)) continue;
    if (session.neverFits(job) !== undefined) continue;
    best.set(job.priority, d);
  }
  return best;
}

/** What a worker must buy for a job of class `priority` to grow first; undefined when a higher class waits. */
function thresholdFor(best: ReadonlyMap<number, number>, priority: number): number | undefined {
  let t: number | undefined;
  for (const [p, d] of best) {
    if (p > priority) return undefined;
    if (p === priority) t = d;
  }
  return t !== undefined && Number.isFinite(t) ? t : undefined;
}

export const growBeforeAdmit: Action = {
  name: 'grow-before-admit',
  run(session) {
    const { model, state } = session;
    if (model.waiting.length === 0 || model.waiting.some((j) => j.starving)) return;
    const best = bestAdmissionPerClass(session);
    if (best.size === 0) return;
    growRunning(session, {
      knee: true,
      skipJobsScaledInThisPass: false,
      limitFor: (job, limit) => {
        const t = thresholdFor(best, job.job.priority);
        const wg = job.job.workers;
        return t === undefined || wg === undefined ? job.workers.length : growBeforeAdmitLimit(state, wg, job.workers.length, limit, t);
      },
    });
  },
};
