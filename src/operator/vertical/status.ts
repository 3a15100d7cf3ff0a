// `status.verticalResize` of one job after a round: the policy's verdict on the job and, per
// container, the last limit asked for and how the resize went (refreshed from the pod each round).
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { VerticalResizeContainer, VerticalResizeStatus } from '../../api/v1/schema.ts';
import type { LimitChange } from '../../scheduler/vertical/flowcon/index.ts';
import { cpuMillis, formatMillis } from './inputs.ts';
import { observeResize } from './resize-state.ts';

/** Most containers listed (the CRD's maxItems): the newest are kept. */
export const MAX_STATUS_CONTAINERS = 256;

/** What became of one planned change: asked for (the API took it), or refused with a message. */
export interface Applied {
  readonly change: LimitChange;
  readonly error?: string;
}

export interface JobVerdict {
  readonly list?: string;
  readonly growthEfficiency?: number;
  readonly leftAlone?: string;
}

const decimal = (x: number) => String(Number(x.toPrecision(4)));

/**
 * The job's new status: earlier entries refreshed from their pods (dropped once the pod is gone or
 * its limit was changed by someone else), then this round's changes.
 */
export function nextStatus(
  policy: string,
  previous: VerticalResizeStatus | undefined,
  verdict: JobVerdict,
  applied: readonly Applied[],
  podOf: (name: string) => Pod | undefined,
  time: string,
): VerticalResizeStatus {
  const entries = new Map<string, VerticalResizeContainer>();
  for (const c of previous?.containers ?? []) {
    const want = cpuMillis(c.cpuLimit);
    if (c.state === 'Failed' || want === undefined) {
      if (podOf(c.pod) !== undefined) entries.set(`${c.pod}/${c.container}`, c);
      continue;
    }
    const seen = observeResize(podOf(c.pod), c.container, want);
    if (seen === undefined) continue;
    const { message: _old, ...rest } = c;
    entries.set(`${c.pod}/${c.container}`, { ...rest, state: seen.state, ...(seen.message ? { message: seen.message } : {}) });
  }
  for (const { change, error } of applied) {
    entries.set(`${change.pod}/${change.container}`, {
      pod: change.pod,
      container: change.container,
      cpuLimit: formatMillis(change.toMillis),
      previousCpuLimit: formatMillis(change.fromMillis),
      time,
      reason: change.reason,
      state: error === undefined ? 'Requested' : 'Failed',
      ...(error === undefined ? {} : { message: error }),
    });
  }
  const containers = [...entries.values()].slice(-MAX_STATUS_CONTAINERS);
  return {
    policy,
    lastRound: time,
    ...(verdict.list === undefined ? {} : { list: verdict.list }),
    ...(verdict.growthEfficiency === undefined ? {} : { growthEfficiency: decimal(verdict.growthEfficiency) }),
    ...(verdict.leftAlone === undefined ? {} : { leftAlone: verdict.leftAlone }),
    ...(containers.length === 0 ? {} : { containers }),
  };
}

/**
 * Equal but for the round's time and growth figure: not worth a status write (a growth figure per job
 * per round would be a status write per running job per interval; it is written with any other change).
 */
export function sameStatus(a: VerticalResizeStatus | undefined, b: VerticalResizeStatus): boolean {
  if (a === undefined) return false;
  const { lastRound: _a, growthEfficiency: _ga, ...x } = a;
  const { lastRound: _b, growthEfficiency: _gb, ...y } = b;
  return JSON.stringify(x) === JSON.stringify(y);
}

/** Resizes of this round that the kubelet has since refused: entries newly Deferred or Infeasible. */
export function newlyRefused(previous: VerticalResizeStatus | undefined, next: VerticalResizeStatus): VerticalResizeContainer[] {
  const before = new Map((previous?.containers ?? []).map((c) => [`${c.pod}/${c.container}`, c]));
  return (next.containers ?? []).filter((c) => {
    if (c.state !== 'Deferred' && c.state !== 'Infeasible') return false;
    const b = before.get(`${c.pod}/${c.container}`);
    return b === undefined || b.state !== c.state || b.cpuLimit !== c.cpuLimit;
  });
}
