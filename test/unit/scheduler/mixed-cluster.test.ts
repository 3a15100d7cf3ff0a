// A cluster of GPU nodes and CPU-only nodes (issue 41 item 3; scheduling.md §5, "CPU-only replicas
// of GPU jobs").
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../src/scheduler/index.ts';
import type { NodeInfo } from '../../../src/scheduler/types.ts';
import { getSimPolicy } from '../../../lab/simulator/policies/registry.ts';
import { cpu, Gi, node, snapshot, waiting } from './helpers/builders.ts';

const GPU = 'nvidia.com/gpu';
const gpuNode = (name: string): NodeInfo => node(name, { cpu: cpu(32), memory: 240 * Gi, [GPU]: 4 });
const cpuNode = (name: string, cores = 16): NodeInfo => node(name, { cpu: cpu(cores), memory: 64 * Gi });
/** A GPU job: a PS of 4 cpu and no GPU, `workers` workers of one GPU each. */
const gpuJob = (key: string, workers: number) =>
  waiting(key, { ps: { cpu: cpu(4), memory: 16 * Gi }, worker: { [GPU]: 1, cpu: cpu(8), memory: 56 * Gi }, min: workers, max: workers });

describe('a GPU job while no node has a GPU', () => {
  it('waits whole (no PS without its workers), saying which resource no node has', () => {
    for (const policy of ['ours', 'kod2', getSimPolicy('gang-fifo')] as const) {
      const plan = schedule(policy, snapshot([cpuNode('cpu-0'), cpuNode('cpu-1')], [gpuJob('j', 2)]));
      expect(plan.admit).toEqual([]);
      expect(plan.waiting.map((w) => w.job)).toEqual(['j']);
      expect(plan.waiting[0]!.reason).toContain(`no node has ${GPU} (Worker requests it; 2 nodes)`);
    }
  });

  it('still names the largest free slot when the resource exists but is taken', () => {
    const busy = [{ key: 'x/gpu-user', node: 'gpu-0', requests: { [GPU]: 4 } }];
    const plan = schedule('ours', snapshot([gpuNode('gpu-0'), cpuNode('cpu-0')], [gpuJob('j', 1)], { otherPods: busy }));
    expect(plan.waiting[0]!.reason).not.toContain('no node has');
    expect(plan.waiting[0]!.reason).toContain('largest free slot on a node Worker may use');
  });
});

describe("a GPU job's CPU-only replicas (PS) on a mixed cluster", () => {
  const placed = (plan: ReturnType<typeof schedule>): string[] =>
    plan.admit.flatMap((a) => a.replicas.map((r) => `${r.type}:${r.index}@${r.node}`)).sort();

  it('go beside its workers on the GPU node, even with an idle CPU-only node (measured: simulation-results.md §8)', () => {
    const plan = schedule('ours', snapshot([gpuNode('gpu-0'), cpuNode('cpu-0'), cpuNode('cpu-1', 24)], [gpuJob('j', 2)]));
    expect(placed(plan)).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
  });

  it('share a node with as many of its workers as fit when the job needs two GPU nodes', () => {
    // 5 workers of 8 cpu and a 4-cpu PS: gpu-0 takes the PS and 3 workers (28 of 32 cpu), gpu-1 the other 2.
    const plan = schedule('ours', snapshot([gpuNode('gpu-0'), gpuNode('gpu-1'), cpuNode('cpu-0')], [gpuJob('j', 5)]));
    expect(placed(plan)).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0', 'Worker:2@gpu-0', 'Worker:3@gpu-1', 'Worker:4@gpu-1']);
  });

  it('a CPU-only job goes to the most idle node, which an idle GPU node is (its idle GPUs count; measured neutral)', () => {
    const plan = schedule('ours', snapshot([gpuNode('gpu-0'), cpuNode('cpu-0', 64)], [waiting('c', { min: 2, max: 2 })]));
    expect(placed(plan)).toEqual(['PS:0@gpu-0', 'Worker:0@gpu-0', 'Worker:1@gpu-0']);
  });
});
