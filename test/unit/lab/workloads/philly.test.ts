import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkloadJob } from '../../../../lab/workloads/model.ts';
import { smallestRotation } from '../../../../lab/workloads/philly/app.ts';
import { loadPhillyApp } from '../../../../lab/workloads/philly/load.ts';
import { iterationSeconds, iterationsToFinish, measuredStepTime } from '../../../../lab/workloads/philly/step-time.ts';
import { loadScenario, REPO_ROOT } from '../../../../lab/workloads/scenario.ts';
import { progressRate, workersPerNode } from '../../../../lab/workloads/throughput.ts';
import { fewestNodesPlacement, idealRuntimeSeconds } from '../../../../lab/workloads/ideal.ts';

const APPS = join(REPO_ROOT, 'traces/philly/apps');
const cifar10 = loadPhillyApp(APPS, 'cifar10');
const yolov3 = loadPhillyApp(APPS, 'yolov3', 8);

// The expected values below are rows copied from the CSVs under traces/philly/apps.
describe('Philly step times', () => {
  it('normalises a placement to its smallest rotation', () => {
    expect(smallestRotation([2, 1])).toEqual([1, 2]);
    expect(smallestRotation([2, 1, 2, 1])).toEqual([1, 2, 1, 2]);
    expect(smallestRotation([3, 2, 1])).toEqual([1, 3, 2]);
    expect(smallestRotation([1, 3, 2])).toEqual([1, 3, 2]);
    expect(smallestRotation([4])).toEqual([4]);
  });

  it('counts workers per node in numeric node order', () => {
    expect(workersPerNode(['node-10', 'node-2', 'node-10', 'node-2', 'node-2'])).toEqual([3, 2]);
  });

  it('returns a measured row as is', () => {
    // cifar10/placements.csv: 1,32,0.0427886962890625,0.0004995360016822816
    expect(measuredStepTime(cifar10, [1], 32)).toEqual({ stepTime: 0.0427886962890625, syncTime: 0.0004995360016822816 });
  });

  it('is linear in local batch between measured rows', () => {
    // rows "1" at local_bsz 32 (0.0427886962890625) and 45 (0.05048525333404541); 40 is 8/13 of the way.
    const expected = 0.0427886962890625 + ((0.05048525333404541 - 0.0427886962890625) * 8) / 13;
    expect(measuredStepTime(cifar10, [1], 40).stepTime).toBeCloseTo(expected, 12);
  });

  it('looks a rotated placement up under its smallest rotation', () => {
    // Two workers on the first node, one on the second: "21" is stored as "12".
    // Global batch 128 over 3 workers → local 43, between rows "12" at 32 (0.12787373065948487)
    // and 45 (0.12848591804504395).
    const expected = 0.12787373065948487 + ((0.12848591804504395 - 0.12787373065948487) * 11) / 13;
    expect(iterationSeconds(cifar10, [2, 1], 128)).toBeCloseTo(expected, 12);
    expect(iterationSeconds(cifar10, [1, 2], 128)).toBeCloseTo(expected, 12);
  });

  it('interpolates unmeasured placements between node counts at equal workers per node', () => {
    // Five nodes × one worker is not in placements.csv. At one worker per node: 4 nodes is the
    // placement "1111" (local 64: 0.14134659767150878), 6 nodes the scalability row 6,6,64
    // (0.14154329299926757); five nodes is half way.
    const expected = (0.14134659767150878 + 0.14154329299926757) / 2;
    expect(iterationSeconds(cifar10, [1, 1, 1, 1, 1], 320)).toBeCloseTo(expected, 12);
  });

  it('splits yolov3 local batches above 8 into accumulation steps paying sync once', () => {
    // Four workers on one node at global batch 64: local 16 = 2 steps of 8.
    // yolov3/placements.csv: 4,8,0.5009251087903976,0.11896183347702027
    const step = 0.5009251087903976;
    const sync = 0.11896183347702027;
    expect(iterationSeconds(yolov3, [4], 64)).toBeCloseTo(step + (step - sync), 12);
  });

  it('progress rate is one iteration per step time, zero without a PS', () => {
    const job: WorkloadJob = {
      name: 'c',
      submitSeconds: 0,
      ps: { count: 1, requests: {} },
      workers: { requests: {}, min: 1, max: 1 },
      work: 10,
      workUnit: 'iterations',
      throughput: { kind: 'philly', app: cifar10, globalBatch: 32 },
      label: 'cifar10 b32',
    };
    expect(progressRate(job, { ps: ['node-3'], workers: ['node-0'] })).toBeCloseTo(1 / 0.0427886962890625, 9);
    expect(progressRate(job, { ps: [], workers: ['node-0'] })).toBe(0);
  });
});

describe('Philly iterations to finish', () => {
  it('reads the iteration count at epoch max_epochs − 1', () => {
    // cifar10/validation-4096.csv has 100 epochs; the last reads iteration 2011.
    expect(iterationsToFinish(cifar10, 4096, 100)).toBe(2011);
    // validation-2048.csv: 3178 at epoch 100.
    expect(iterationsToFinish(cifar10, 2048, 100)).toBe(3178);
  });

  it('is linear between the two nearest measured batch sizes and clamped outside', () => {
    expect(iterationsToFinish(cifar10, 3072, 100)).toBeCloseTo((3178 + 2011) / 2, 9);
    expect(iterationsToFinish(cifar10, 8192, 100)).toBe(2011);
  });

  it('reads the epoch asked for, not the last one', () => {
    // validation-128.csv: epoch 1 ends at iteration 390, epoch 2 at 781.
    expect(iterationsToFinish(cifar10, 128, 1)).toBe(390);
    expect(iterationsToFinish(cifar10, 128, 2)).toBe(781);
  });
});

describe('Philly scenario', () => {
  const scenario = loadScenario('philly-1');
  const byName = new Map(scenario.jobs.map((j) => [j.name, j]));

  it('builds 160 jobs with max = num_replicas, min = ceil(max / 4), 1 PS', () => {
    expect(scenario.jobs).toHaveLength(160);
    // workload-1.csv: deepspeech2-3,262,deepspeech2,12,640
    const ds = byName.get('deepspeech2-3')!;
    expect(ds.submitSeconds).toBe(262);
    expect(ds.workers).toMatchObject({ min: 3, max: 12 });
    expect(ds.ps.count).toBe(1);
    // deepspeech2/validation-640.csv has 80 epochs ending at iteration 1423.
    expect(ds.work).toBe(1423);
    expect(ds.workers.requests).toEqual({ 'nvidia.com/gpu': 1, cpu: 12_000, memory: 48 * 2 ** 30 });
    expect(ds.ps.requests).toEqual({ cpu: 4000, memory: 16 * 2 ** 30 });
  });

  it('sensitivity variants change only the minimum', () => {
    const one = loadScenario('philly-1-min1').jobs.find((j) => j.name === 'deepspeech2-3')!;
    const max = loadScenario('philly-1-minmax').jobs.find((j) => j.name === 'deepspeech2-3')!;
    expect(one.workers).toMatchObject({ min: 1, max: 12 });
    expect(max.workers).toMatchObject({ min: 12, max: 12 });
  });

  it('ideal placement packs four GPU workers per node beside the PS', () => {
    const ds = byName.get('deepspeech2-3')!;
    const placement = fewestNodesPlacement(ds, 12, scenario.cluster)!;
    expect(workersPerNode(placement.workers)).toEqual([4, 4, 4]);
    expect(idealRuntimeSeconds(ds, scenario.cluster, 0)).toBeCloseTo(
      1423 * iterationSeconds(loadPhillyApp(APPS, 'deepspeech2'), [4, 4, 4], 640),
      6,
    );
  });
});
