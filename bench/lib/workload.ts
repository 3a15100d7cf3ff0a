// Plain TFJobs for the operator-cost benchmarks (burst, memory) and fast bulk writes: the benchmark
// process writes with many requests in flight and no client-side rate limit, so the system under
// test, not the driver, is what is measured.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export interface SimpleJobShape {
  readonly workers: number;
  readonly ps: { readonly cpu: string; readonly memory: string };
  readonly worker: { readonly cpu: string; readonly memory: string };
  /** Merged into each replica's pod template spec (node selectors, tolerations). */
  readonly podSpec?: Record<string, unknown>;
  readonly cleanPodPolicy?: 'None' | 'Running' | 'All';
}

/** A fixed-size TFJob (1 PS + N workers, no elasticPolicy), as a Kubeflow user writes one. */
export function simpleTfjob(name: string, namespace: string, shape: SimpleJobShape): Record<string, unknown> {
  const template = (r: { cpu: string; memory: string }) => ({
    spec: {
      containers: [
        { name: 'tensorflow', image: 'example.invalid/tf-emulated:latest', resources: { requests: { cpu: r.cpu, memory: r.memory } } },
      ],
      ...(shape.podSpec ?? {}),
    },
  });
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name, namespace },
    spec: {
      runPolicy: { cleanPodPolicy: shape.cleanPodPolicy ?? 'None' },
      tfReplicaSpecs: {
        PS: { replicas: 1, restartPolicy: 'OnFailure', template: template(shape.ps) },
        Worker: { replicas: shape.workers, restartPolicy: 'OnFailure', template: template(shape.worker) },
      },
    },
  };
}

/** A driver client: no client-side rate limit. */
export function driverClients(kc: KubeConfig): KubeClients {
  return new KubeClients(kc, { rateLimit: { qps: 0, burst: 1 } });
}

/** Runs `fn` over `items` with at most `concurrency` in flight; retries 429/5xx/network errors. */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      for (let attempt = 0; ; attempt++) {
        try {
          await fn(items[i]!, i);
          break;
        } catch (err) {
          const code = httpStatus(err);
          const retriable = code === undefined || code === 429 || code >= 500;
          if (!retriable || attempt >= 8) throw err;
          await sleep(100 * 2 ** attempt);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export async function createNamespace(clients: KubeClients, name: string): Promise<void> {
  const core = clients.api(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name } } }).catch((err: unknown) => {
    if (httpStatus(err) !== 409) throw err;
  });
  // Pods need the namespace's default ServiceAccount (kube-controller-manager creates it).
  for (let i = 0; i < 600; i++) {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`no default ServiceAccount in namespace ${name} after 60 s`);
}

export function tfjobsPath(namespace: string): string {
  return `/apis/kubeflow.org/v1/namespaces/${namespace}/tfjobs`;
}
