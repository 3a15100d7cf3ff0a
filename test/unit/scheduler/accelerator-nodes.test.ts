import { describe, expect, it } from 'vitest';
import { isExtendedResource } from '../../../src/scheduler/accelerator-nodes.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { buildPassModel } from '../../../src/scheduler/job-model.ts';
import { findPlacement, minimumItems } from '../../../src/scheduler/placement.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { ClusterSnapshot, NodeInfo } from '../../../src/scheduler/types.ts';
import { cpu, Gi, node, snapshot, waiting } from './helpers/builders.ts';

const GPU = 'nvidia.com/gpu';
const gpuNode = (name: string): NodeInfo => node(name, { cpu: cpu(32), memory: 240 * Gi, [GPU]: 4 });
const cpuNode = (name: string, cores = 16): NodeInfo => node(name, { cpu: cpu(cores), memory: 64 * Gi });
/** A GPU job: PS of 4 cpu and no GPU, workers of one GPU each. */
const gpuJob = (key: string, workers: number) =>
  waiting(key, { ps: { cpu: cpu(4), memory: 16 * Gi }, worker: { [GPU]: 1, cpu: cpu(8), memory: 56 * Gi }, min: workers, max: workers });

function place(snap: ClusterSnapshot, key: string): string[] | string {
  const m = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
  const items = minimumItems(m.jobs.get(key)!);
  const out = findPlacement(m.state, items);
  if (!out.ok) return `${out.failure.kind} ${out.failure.group.type}`;
  return items.flatMap((it, i) => (out.placement[i] ?? []).map((n, k) => `${it.group.type}:${k}@${m.state.nodes[n]!.name}`));
}

describe('isExtendedResource (Kubernetes IsExtendedResourceName)', () => {
  it('is a domain-qualified name outside kubernetes.io', () => {
    expect(['nvidia.com/gpu', 'amd.com/gpu', 'google.com/tpu', 'example.com/foo'].map(isExtendedResource)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      [
        'cpu',
        'memory',
        'pods',
        'ephemeral-storage',
        'hugepages-2Mi',
        'kubernetes.io/x',
        'a.kubernetes.io/x',
        'requests.example.com/foo',
      ].map(isExtendedResource),
    ).toEqual([false, false, false, false, false, false, false, false]);
  });
});

describe('replicas that request no accelerator keep off accelerator nodes', () => {
  it("variant (c): leaves a GPU job's PS beside its workers", () => {
    // Variant (c): the PS stays beside its workers.
    const snap = snapshot([gpuNode('gpu-0'), cpuNode('cpu-0'), cpuNode('cpu-1', 24)], [gpuJob('j', 2)]);
    expect(place(snap, 'j')).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
  });

  it('puts a CPU-only job on CPU-only nodes, fewest nodes first as everywhere', () => {
    const snap = snapshot([gpuNode('gpu-0'), cpuNode('cpu-0'), cpuNode('cpu-1')], [waiting('c', { min: 3 })]);
    expect(place(snap, 'c')).toEqual(['PS:0@cpu-0', 'Worker:0@cpu-0', 'Worker:1@cpu-0', 'Worker:2@cpu-0']);
  });

  it('uses an accelerator node for them only when the CPU-only nodes have no room', () => {
    // The CPU node has 2 cpu left: the 4-cpu PS goes beside its workers, as without the rule.
    const otherPods = [{ key: 'x/busy', node: 'cpu-0', requests: { cpu: cpu(14) } }];
    const snap = snapshot([gpuNode('gpu-0'), cpuNode('cpu-0')], [gpuJob('j', 2)], { otherPods });
    expect(place(snap, 'j')).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
  });

  it('changes nothing on a cluster without accelerator nodes, or with only accelerator nodes', () => {
    const allGpu = snapshot([gpuNode('gpu-0'), gpuNode('gpu-1')], [gpuJob('j', 2)]);
    expect(place(allGpu, 'j')).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
    const allCpu = snapshot([cpuNode('cpu-0'), cpuNode('cpu-1', 24)], [waiting('c', { min: 2 })]);
    expect(place(allCpu, 'c')).toEqual(['PS:0@cpu-1', 'Worker:0@cpu-1', 'Worker:1@cpu-1']);
  });

  it('variant (c): the Plan places the whole GPU job on the GPU node', () => {
    const plan = schedule('ours', snapshot([gpuNode('gpu-0'), cpuNode('cpu-0')], [gpuJob('j', 2)]));
    const placed = plan.admit.flatMap((a) => a.replicas.map((r) => `${r.type}:${r.index}@${r.node}`)).sort();
    expect(placed).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
  });
});
