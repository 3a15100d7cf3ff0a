// A cluster of GPU nodes and CPU-only nodes (issue 41 item 3; scheduling.md §5, "CPU-only replicas
// of GPU jobs").
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../src/scheduler/index.ts';
import type { NodeInfo } from '../../../src/scheduler/types.ts';
import { cpu, Gi, node, snapshot, waiting } from './helpers/builders.ts';

const GPU = 'nvidia.com/gpu';
const gpuNode = (name: string): NodeInfo => node(name, { cpu: cpu(32), memory: 240 * Gi, [GPU]: 4 });
const cpuNode = (name: string, cores = 16): NodeInfo => node(name, { cpu: cpu(cores), memory: 64 * Gi });
/** A GPU job: a PS of 4 cpu and no GPU, `workers` workers of one GPU each. */
const gpuJob = (key: string, workers: number) =>
  waiting(key, { ps: { cpu: cpu(4), memory: 16 * Gi }, worker: { [GPU]: 1, cpu: cpu(8), memory: 56 * Gi }, min: workers, max: workers });

describe('a GPU job while no node has a GPU', () => {
  it('waits whole (no PS without its workers), saying which resource no node has', () => {
    for (const policy of ['ours', 'kod2', 'gang-fifo'] as const) {
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
