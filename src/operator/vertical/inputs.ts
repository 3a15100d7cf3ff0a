// What a vertical policy sees of a TFJob, from the operator's caches: its running training
// containers' CPU requests and limits (the template's, the pod's, the one we set last), whether it
// opted out, and for DQoES its class and distance from its target as the scheduler wrote them.
import { DEFAULT_CONTAINER_NAME, LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import { parseQuantity } from '../../api/v1/quantity.ts';
import { isControlledBy } from '../../reconciler/tfjob/identity.ts';
import { isTerminating } from '../../reconciler/tfjob/pod-state.ts';
import type { QoeClass } from '../../scheduler/vertical/dqoes/index.ts';
import type { ContainerCpu } from '../../scheduler/vertical/flowcon/index.ts';
import { ANNOTATION_CPU_RESIZE } from './policy.ts';

/** A CPU quantity in millicores, or undefined when absent or not one. */
export function cpuMillis(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  const v = parseQuantity(q);
  return v === undefined || v < 0 ? undefined : Math.round(v * 1000);
}

export const formatMillis = (m: number): string => (m % 1000 === 0 ? String(m / 1000) : `${m}m`);

/** The job's `cpu-resize` annotation says "false". */
export function optedOut(entry: ParsedTFJobEntry): boolean {
  return entry.job.metadata.annotations?.[ANNOTATION_CPU_RESIZE]?.trim().toLowerCase() === 'false';
}

function templateLimit(entry: ParsedTFJobEntry, replicaType: string | undefined): { request?: number; limit?: number } {
  if (replicaType === undefined) return {};
  const spec = Object.entries(entry.defaulted.spec.tfReplicaSpecs).find(([type]) => type.toLowerCase() === replicaType)?.[1];
  const c = spec?.template.spec?.containers.find((x) => x.name === DEFAULT_CONTAINER_NAME);
  const limit = cpuMillis(c?.resources?.limits?.['cpu']);
  const request = cpuMillis(c?.resources?.requests?.['cpu']) ?? limit;
  return { ...(request === undefined ? {} : { request }), ...(limit === undefined ? {} : { limit }) };
}

/** The limits this operator set last, by pod/container (from `status.verticalResize`). */
export function setByUs(entry: ParsedTFJobEntry): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of entry.status?.verticalResize?.containers ?? []) {
    const m = c.state === 'Failed' ? undefined : cpuMillis(c.cpuLimit);
    if (m !== undefined) out.set(`${c.pod}/${c.container}`, m);
  }
  return out;
}

/**
 * The job's running, bound training containers with a CPU request and limit in their pod. `recent`:
 * limits this operator set that its status may not show yet (pod/container → millicores; they win).
 */
export function containersOf(entry: ParsedTFJobEntry, pods: readonly Pod[], recent?: ReadonlyMap<string, number>): ContainerCpu[] {
  const uid = entry.job.metadata.uid;
  const ours = new Map([...setByUs(entry), ...(recent ?? [])]);
  const out: ContainerCpu[] = [];
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (p.status?.phase !== 'Running' || isTerminating(p) || node === undefined || (uid !== undefined && !isControlledBy(p, uid))) continue;
    const c = p.spec?.containers.find((x) => x.name === DEFAULT_CONTAINER_NAME);
    const limitMillis = cpuMillis(c?.resources?.limits?.['cpu']);
    const requestMillis = cpuMillis(c?.resources?.requests?.['cpu']) ?? limitMillis;
    const template = templateLimit(entry, p.metadata?.labels?.[LABEL_REPLICA_TYPE]);
    if (c === undefined || limitMillis === undefined || requestMillis === undefined || template.limit === undefined) continue;
    const pod = p.metadata?.name ?? '';
    const mine = ours.get(`${pod}/${c.name}`);
    out.push({
      pod,
      container: c.name,
      node,
      requestMillis,
      limitMillis,
      templateLimitMillis: template.limit,
      ...(mine === undefined ? {} : { setByUsMillis: mine }),
    });
  }
  return out;
}

/** DQoES's class and q of the job from `status.qoe` (written by the scheduler's last pass). */
export function qoeOf(entry: ParsedTFJobEntry): { qoeClass?: QoeClass; distance?: number } {
  const q = entry.status?.qoe;
  if (q?.class === undefined) return {};
  const required = Number(q.requiredStepsPerSecond);
  const measured = Number(q.measuredStepsPerSecond);
  const distance = required > 0 && Number.isFinite(measured) ? Math.abs(measured / required - 1) : undefined;
  return { qoeClass: q.class, ...(distance === undefined ? {} : { distance }) };
}
