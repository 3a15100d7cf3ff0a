// Optional in-place CPU resize of converged jobs' workers (`--resize-converged-cpu F`, 0 < F < 1):
// FlowCon's actuator (it lowers a converged container's CPU limit with `docker update` so that the
// containers still learning on the node get the cycles) through
// the pod `resize` subresource of in-place pod resize (KEP-1287, `InPlacePodVerticalScaling`: beta
// and on by default in Kubernetes 1.33, GA in 1.35; this operator's tests run 1.36).
//
// What it changes: the CPU *limit* of the `tensorflow` container of every running worker of a job
// whose progress phase is Converged, to max(request, F × the limit its template sets); back to the
// template's limit once the job is no longer Converged (or its signal is gone). Requests never
// change, so neither kube-scheduler's nor this operator's accounting moves: a converged job keeps
// its place and only yields the CPU it would burst into. Containers without a CPU limit above their
// request (Guaranteed or unlimited ones) are left alone: a limit added or removed could change the
// pod's QoS class, which a resize may not. Uses only the phase the job's own log gives.
import { DEFAULT_CONTAINER_NAME, LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import { parseQuantity } from '../../api/v1/quantity.ts';
import { isControlledBy } from '../../reconciler/tfjob/identity.ts';
import { isTerminating } from '../../reconciler/tfjob/pod-state.ts';
import type { ProgressView } from '../signals/index.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';

/** One container's CPU limit to set in place. */
export interface CpuResize {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** In millicores, as the limit is written (`<n>m`). */
  readonly limitMillis: number;
  /** True when lowering it for a converged job, false when giving the template's limit back. */
  readonly lower: boolean;
}

function millis(q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  const v = parseQuantity(q);
  return v === undefined || v < 0 ? undefined : Math.round(v * 1000);
}

/**
 * The resizes that bring the job's running workers to what its phase asks for (none when they are
 * there already). `fraction` is F; the template is the job's own `Worker` replica template.
 */
export function planCpuResizes(
  entry: ParsedTFJobEntry,
  phase: ProgressView['phase'] | undefined,
  pods: readonly Pod[],
  fraction: number,
): CpuResize[] {
  const template = entry.defaulted.spec.tfReplicaSpecs['Worker']?.template.spec?.containers.find((c) => c.name === DEFAULT_CONTAINER_NAME);
  const limit = millis(template?.resources?.limits?.['cpu']);
  const request = millis(template?.resources?.requests?.['cpu']) ?? limit;
  if (limit === undefined || request === undefined || limit <= request) return [];
  const want = phase === 'Converged' ? Math.max(request, Math.round(fraction * limit)) : limit;
  const uid = entry.job.metadata.uid;
  const namespace = entry.job.metadata.namespace ?? 'default';
  const out: CpuResize[] = [];
  for (const p of pods) {
    if (p.metadata?.labels?.[LABEL_REPLICA_TYPE] !== 'worker' || p.status?.phase !== 'Running' || isTerminating(p)) continue;
    if (uid !== undefined && !isControlledBy(p, uid)) continue;
    const c = p.spec?.containers.find((x) => x.name === DEFAULT_CONTAINER_NAME);
    const now = millis(c?.resources?.limits?.['cpu']);
    // A container whose limit is not the template's or ours was changed by someone else: not ours to touch.
    if (c === undefined || now === undefined || now === want || (now !== limit && now !== Math.max(request, Math.round(fraction * limit))))
      continue;
    out.push({ namespace, pod: p.metadata.name ?? '', container: DEFAULT_CONTAINER_NAME, limitMillis: want, lower: want < limit });
  }
  return out;
}

/** Where resizes go (the API server's `pods/resize`; a fake in tests). */
export interface PodResizer {
  resize(r: CpuResize): Promise<void>;
}

/** `PATCH pods/<name>/resize` (strategic merge), through the operator's shared client. */
export class KubePodResizer implements PodResizer {
  readonly #clients: KubeClients;

  constructor(clients: KubeClients) {
    this.#clients = clients;
  }

  async resize(r: CpuResize): Promise<void> {
    const path = `/api/v1/namespaces/${encodeURIComponent(r.namespace)}/pods/${encodeURIComponent(r.pod)}/resize`;
    const body = { spec: { containers: [{ name: r.container, resources: { limits: { cpu: `${r.limitMillis}m` } } }] } };
    await this.#clients.request('PATCH', path, body, 'application/strategic-merge-patch+json');
  }
}
