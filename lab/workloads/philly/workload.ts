// Philly workloads (docs/simulation-results.md §1): arrivals and sizes from workload-N.csv, work and speed from
// the measured application tables.
import type { PhillyScenario } from '../scenario-schema.ts';
import type { WorkloadJob } from '../model.ts';
import type { PhillyApp } from './app.ts';
import { canonicalResources } from '../resources.ts';
import { jitterFactor, seededRandom } from '../random.ts';
import { numberColumn, parseCsv, stringColumn } from './csv.ts';
import { iterationsToFinish } from './step-time.ts';
import { phillyCurve } from '../progress-curve.ts';

export interface PhillyWorkloadRow {
  readonly name: string;
  readonly time: number;
  readonly application: string;
  readonly numReplicas: number;
  readonly batchSize: number;
}

export function parseWorkloadCsv(text: string, source: string): PhillyWorkloadRow[] {
  return parseCsv(text, source).map((row) => ({
    name: stringColumn(row, 'name', source),
    time: numberColumn(row, 'time', source),
    application: stringColumn(row, 'application', source),
    numReplicas: numberColumn(row, 'num_replicas', source),
    batchSize: numberColumn(row, 'batch_size', source),
  }));
}

export function minWorkersFor(rule: PhillyScenario['minWorkers'], max: number): number {
  switch (rule) {
    case 'quarter':
      return Math.ceil(max / 4);
    case 'one':
      return 1;
    case 'max':
      return max;
  }
}

/**
 * `appFor` supplies the loaded tables of an application (the caller caches and does the I/O).
 * A rate jitter, when configured, scales the job's step rate by stretching its work instead: the
 * shared tables stay untouched and the job still finishes exactly when its rate says.
 */
export function buildPhillyJobs(
  scenario: PhillyScenario,
  rows: readonly PhillyWorkloadRow[],
  appFor: (name: string) => PhillyApp,
  seed: number,
): WorkloadJob[] {
  const random = seededRandom(seed);
  const ps = canonicalResources(scenario.ps);
  const worker = canonicalResources(scenario.worker);
  return rows.map((row) => {
    const maxEpochs = scenario.maxEpochs[row.application];
    if (maxEpochs === undefined) throw new Error(`job ${row.name}: no maxEpochs for application "${row.application}"`);
    const app = appFor(row.application);
    const iterations = iterationsToFinish(app, row.batchSize, maxEpochs);
    const work = iterations / jitterFactor(random, scenario.rateJitter);
    return {
      name: row.name,
      submitSeconds: row.time,
      ps: { count: 1, requests: ps },
      workers: { requests: worker, min: minWorkersFor(scenario.minWorkers, row.numReplicas), max: row.numReplicas },
      work,
      workUnit: 'iterations',
      throughput: { kind: 'philly', app, globalBatch: row.batchSize },
      label: `${row.application} b${row.batchSize}`,
      curve: phillyCurve(app, row.batchSize, maxEpochs, work),
    } satisfies WorkloadJob;
  });
}
