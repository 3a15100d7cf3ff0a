// The vertical stage's two API uses besides pods/resize: nodes' allocatable CPU, and the job's
// `status.verticalResize` (the reconciler's status writes start from the stored status, so they keep it).
import type { V1Node } from '@kubernetes/client-node';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import type { VerticalResizeStatus } from '../../api/v1/schema.ts';
import { httpStatus } from '../../runtime/http-status.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { NodeCpu } from '../../scheduler/vertical/flowcon/index.ts';
import { cpuMillis } from './inputs.ts';
import type { NodeCpuSource, VerticalStatusWriter } from './stage.ts';

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
