// A static pod on the real node that the API never shows: its manifest names a namespace that does
// not exist, so the kubelet runs it (and counts its requests when it admits other pods) but cannot
// create its mirror pod. What the kubelet holds is read from the kubelet itself (its /pods, through
// the apiserver's node proxy), and its container's removal from the node's cgroups.
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { V1Pod, V1PodList } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { containerCpuCgroup, PAUSE_IMAGE } from '../../lab/local-cluster/real-node/index.ts';
import { kubectl } from '../integration/install/helpers.ts';
import { clusterState, eventually } from '../support/kube.ts';

/** The kubelet's static pod directory (its config's staticPodPath; checked every 5 s). */
function manifestDir(): string {
  const node = inject('realNode');
  if ('skipped' in node) throw new Error(`no real node: ${node.skipped}`);
  return path.join(node.workDir, 'kubelet', 'manifests');
}

export interface HiddenStaticPod {
  /** The name the kubelet gives it: the manifest's name and `-<node>`. */
  readonly kubeletName: string;
  readonly namespace: string;
  readonly manifest: string;
}

/** Writes the manifest of a pause container requesting `cpu` in `namespace` (which must not exist). */
export function writeHiddenStaticPod(name: string, namespace: string, cpu: string, node: string): HiddenStaticPod {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      // No sandbox network to set up or tear down: it only has to hold CPU in the kubelet's books.
      hostNetwork: true,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'hold', image: PAUSE_IMAGE, imagePullPolicy: 'Never', resources: { requests: { cpu } } }],
    },
  };
  const manifest = path.join(manifestDir(), `${name}.json`);
  // Written whole, then renamed: the kubelet skips dot files and never reads half a manifest.
  const partial = path.join(manifestDir(), `.${name}.json`);
  writeFileSync(partial, JSON.stringify(pod));
  renameSync(partial, manifest);
  return { kubeletName: `${name}-${node}`, namespace, manifest };
}

/** The pods the node's kubelet holds (static ones with the status only it knows). */
export async function kubeletPods(node: string): Promise<V1Pod[]> {
  const { kubectl: binary, kubeconfig } = clusterState();
  const res = await kubectl(binary, kubeconfig, ['get', '--raw', `/api/v1/nodes/${node}/proxy/pods`]);
  if (res.code !== 0) throw new Error(`kubelet /pods of ${node}: ${res.stderr}`);
  return (JSON.parse(res.stdout) as V1PodList).items;
}

/** Waits until the kubelet runs the static pod's container; returns the pod as the kubelet has it. */
export async function waitStaticPodRunning(node: string, pod: HiddenStaticPod): Promise<V1Pod> {
  return eventually(
    async () => {
      const held = (await kubeletPods(node)).find((p) => p.metadata?.name === pod.kubeletName);
      if (held?.status?.phase !== 'Running' || held.status.containerStatuses?.[0]?.state?.running === undefined) return false;
      return held;
    },
    { what: `static pod ${pod.kubeletName} running in the kubelet of ${node}`, timeoutMs: 60_000, intervalMs: 1_000 },
  );
}

/**
 * Removes the manifest and waits until the kubelet has let the pod go and its container is gone from
 * the node's cgroups (the kubelet counts the pod's CPU until then).
 */
export async function removeHiddenStaticPod(node: string, pod: HiddenStaticPod, progress?: (line: string) => void): Promise<void> {
  const started = Date.now();
  const since = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const held = (await kubeletPods(node)).find((p) => p.metadata?.name === pod.kubeletName);
  progress?.(`static pod read from the kubelet at ${since()}; removing its manifest`);
  const containerId = held?.status?.containerStatuses?.[0]?.containerID;
  if (existsSync(pod.manifest)) rmSync(pod.manifest);
  let lastState = '';
  await eventually(
    async () => {
      const now = (
        await kubeletPods(node).catch((err: unknown) => {
          const failure = `failed: ${(err as Error).message.trim().slice(0, 200)}`;
          if (failure !== lastState) progress?.(`reading the kubelet's pods ${failure} at ${since()}`);
          lastState = failure;
          throw err;
        })
      ).find((p) => p.metadata?.name === pod.kubeletName);
      const state =
        now === undefined ? 'gone' : `${now.status?.phase ?? '?'}/${Object.keys(now.status?.containerStatuses?.[0]?.state ?? {}).join()}`;
      if (state !== lastState) progress?.(`static pod in the kubelet's pods: ${state} at ${since()}`);
      lastState = state;
      return now === undefined;
    },
    {
      what: `static pod ${pod.kubeletName} gone from the kubelet of ${node}`,
      timeoutMs: 60_000,
      intervalMs: 1_000,
    },
  );
  progress?.(`static pod ${pod.kubeletName} gone from the kubelet's pods ${since()} after its manifest`);
  if (containerId === undefined || containerId === '') return;
  await eventually(async () => containerCpuCgroup(containerId) === undefined, {
    what: `the container of ${pod.kubeletName} gone from the node's cgroups`,
    timeoutMs: 60_000,
    intervalMs: 1_000,
  });
  progress?.(`its container's cgroup gone ${since()} after its manifest`);
}
