// kod2-paper (docs/simulation-results.md §1): ten TFJobs, one every 30 s, models cycling; synthetic per-model
// constants come from the scenario file.
import type { Kod2PaperScenario } from './scenario-schema.ts';
import type { WorkloadJob } from './model.ts';
import { jitterFactor, seededRandom } from './random.ts';
import { syntheticCurve } from './progress-curve.ts';
import { canonicalResources } from './resources.ts';

export function buildKod2PaperJobs(scenario: Kod2PaperScenario, seed: number): WorkloadJob[] {
  const batch = String(scenario.batchSize) as `${typeof scenario.batchSize}`;
  const random = seededRandom(seed);
  const width = Math.max(2, String(scenario.arrivals.count - 1).length);
  return Array.from({ length: scenario.arrivals.count }, (_, i) => {
    const model = scenario.models[i % scenario.models.length]!;
    return {
      name: `${String(i).padStart(width, '0')}-${model.name}`,
      submitSeconds: scenario.arrivals.firstSeconds + i * scenario.arrivals.intervalSeconds,
      ps: { count: scenario.psPerJob, requests: canonicalResources(model.ps) },
      workers: { requests: canonicalResources(model.worker), min: scenario.workers.min, max: scenario.workers.max },
      work: model.epochs * scenario.datasetImages,
      workUnit: 'images',
      throughput: {
        kind: 'kod2-paper',
        workerImagesPerSecond: model.workerImagesPerSecond[batch] * jitterFactor(random, scenario.rateJitter),
        remotePenalty: model.remotePenalty[batch],
        psCapacityImagesPerSecond: model.psCapacityImagesPerSecond[batch],
      },
      label: `${model.name} b${batch}`,
      curve: syntheticCurve(model.epochs * scenario.datasetImages),
    } satisfies WorkloadJob;
  });
}
