// The vertical stage's API uses besides pods/resize: nodes' allocatable CPU, the containers' CPU usage
// (--flowcon-cpu used), and the job's `status.verticalResize` (the reconciler's status writes start
// from the stored status, so they keep it).
import type { V1Node } from '@kubernetes/client-node';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import type { VerticalResizeStatus } from '../../api/v1/schema.ts';
import { httpStatus } from '../../runtime/http-status.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { NodeCpu } from '../../scheduler/vertical/flowcon/index.ts';
import { cpuMillis } from './inputs.ts';
import type { CpuUsageSource, NodeCpuSource, VerticalStatusWriter } from './stage.ts';

export class KubeNodeCpu implements NodeCpuSource {
  readonly #clients: KubeClients;

  constructor(clients: KubeClients) {
    this.#clients = clients;
  }

  async allocatable(names: readonly string[]): Promise<NodeCpu[]> {
    const out: NodeCpu[] = [];
    for (const name of names) {
      try {
        const node = await this.#clients.request<V1Node>('GET', `/api/v1/nodes/${encodeURIComponent(name)}`);
        const millis = cpuMillis(node.status?.allocatable?.['cpu']);
        if (millis !== undefined) out.push({ name, allocatableMillis: millis });
      } catch {
        // A node that cannot be read is left out: its containers keep their limits this round.
      }
    }
    return out;
  }
}

/** The part of the kubelet's summary API (`/stats/summary`) read here. */
interface KubeletSummary {
  readonly pods?: readonly {
    readonly podRef?: { readonly name?: string; readonly namespace?: string };
    readonly containers?: readonly { readonly name?: string; readonly cpu?: { readonly usageCoreNanoSeconds?: number } }[];
  }[];
}

/** Each container's CPU usage counter in a kubelet summary: namespace/pod/container → millicore-seconds. */
export function usageFromSummary(summary: KubeletSummary): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of summary.pods ?? []) {
    const { name, namespace } = pod.podRef ?? {};
    if (name === undefined || namespace === undefined) continue;
    for (const c of pod.containers ?? []) {
      const ns = c.cpu?.usageCoreNanoSeconds;
      // 1 core-second = 1e9 core-nanoseconds = 1000 millicore-seconds.
      if (c.name !== undefined && typeof ns === 'number') out.set(`${namespace}/${name}/${c.name}`, ns / 1e6);
    }
  }
  return out;
}

/**
 * The kubelet's own CPU accounting (the cgroup's usage), through the API server's node proxy. A node
 * that cannot be read is left out (its jobs fall back to the CPU allowed), with one warning per node.
 */
export class KubeletCpuUsage implements CpuUsageSource {
  readonly #clients: Pick<KubeClients, 'request'>;
  readonly #log: Logger;
  readonly #warned = new Set<string>();

  constructor(clients: Pick<KubeClients, 'request'>, log: Logger) {
    this.#clients = clients;
    this.#log = log;
  }

  async used(nodes: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const out = new Map<string, number>();
    for (const node of nodes) {
      try {
        const path = `/api/v1/nodes/${encodeURIComponent(node)}/proxy/stats/summary?only_cpu_and_memory=true`;
        for (const [k, v] of usageFromSummary(await this.#clients.request<KubeletSummary>('GET', path))) out.set(k, v);
        this.#warned.delete(node);
      } catch (err) {
        if (!this.#warned.has(node))
          this.#log.warn(
            { node, code: httpStatus(err), err },
            'Cannot read CPU usage from the kubelet: FlowCon uses the CPU allowed there',
          );
        this.#warned.add(node);
      }
    }
    return out;
  }
}

interface StoredTFJob {
  readonly metadata?: object;
  readonly status?: object;
}

/**
 * PUT of the status subresource with the cached object's resourceVersion, as the reconciler writes
 * status (the operator's role grants update, not patch, on tfjobs/status); on a conflict it reads
 * the job again, once. One field (`verticalResize`, `migration`) is written; the rest stays as stored.
 */
export async function putStatusField(clients: KubeClients, job: ParsedTFJobEntry, field: string, value: object): Promise<void> {
  const { namespace = 'default', name } = job.job.metadata;
  const path = `/apis/kubeflow.org/v1/namespaces/${encodeURIComponent(namespace)}/tfjobs/${encodeURIComponent(name)}`;
  // The cached object first (its resourceVersion guards the write); on a conflict the stored one, once.
  let stored: StoredTFJob = { metadata: job.job.metadata, ...(job.status === undefined ? {} : { status: job.status }) };
  for (let attempt = 0; ; attempt++) {
    const body = { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', metadata: stored.metadata, status: { ...stored.status, [field]: value } };
    try {
      await clients.request('PUT', `${path}/status`, body);
      return;
    } catch (err) {
      if (httpStatus(err) !== 409 || attempt > 0) throw err;
      stored = await clients.request<StoredTFJob>('GET', path);
    }
  }
}

export class KubeVerticalStatusWriter implements VerticalStatusWriter {
  readonly #clients: KubeClients;

  constructor(clients: KubeClients) {
    this.#clients = clients;
  }

  async write(job: ParsedTFJobEntry, status: VerticalResizeStatus): Promise<void> {
    await putStatusField(this.#clients, job, 'verticalResize', status);
  }
}
