// What the real-node benchmarks (vertical-real.ts, specon-real.ts) share: a run's namespace with the
// trainers' ConfigMap, its deletion, the host's load, and what a sample reads off a job's pod.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { createTrainersConfigMap } from '../../lab/local-cluster/real-node/index.ts';

/** The host's 1-minute load average (the figures depend on it: the runs share 2 cores). */
export const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/** A fresh namespace with the trainers' ConfigMap (retried while its service account controller starts). */
export async function prepareNamespace(core: CoreV1Api, ns: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: ns } } });
  for (let i = 0; ; i++) {
    try {
      await createTrainersConfigMap(core, ns);
      return;
    } catch (err) {
      if (i > 50) throw err;
      await sleep(200);
    }
  }
}

/** Deletes the namespace and waits until its pods are gone, so the next run starts on an empty node. */
export async function deleteNamespace(core: CoreV1Api, ns: string): Promise<void> {
  await core.deleteNamespace({ name: ns }).catch(() => undefined);
  for (let i = 0; i < 120; i++) {
    if ((await core.listNamespacedPod({ namespace: ns })).items.length === 0) return;
    await sleep(1_000);
  }
  throw new Error(`pods of ${ns} still there after 120 s`);
}

function cpuMillis(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return q.endsWith('m') ? Number(q.slice(0, -1)) : Math.round(Number(q) * 1000);
}

/** The training container's CPU limit as the kubelet reports it (the spec's until it does). */
export function limitOf(pod: V1Pod | undefined): number | undefined {
  const status = pod?.status?.containerStatuses?.find((c) => c.name === 'tensorflow');
  const spec = pod?.spec?.containers.find((c) => c.name === 'tensorflow');
  return cpuMillis(status?.resources?.limits?.['cpu'] ?? spec?.resources?.limits?.['cpu']);
}

/** Steps per second over the last ~15 s of this job's samples (progress lines come in bursts). */
export function rateOf(history: readonly { t: number; step: number }[], t: number, step: number): number | undefined {
  const base = [...history].reverse().find((h) => t - h.t >= 15);
  return base === undefined ? undefined : (step - base.step) / (t - base.t);
}
