// One Philly application's measured tables (Pollux artifact): step times by placement and by
// cluster-wide scale, and per-epoch progress by global batch size. Built from CSV text so the
// model stays pure; reading the files is `load.ts`'s job.
import { numberColumn, parseCsv, stringColumn } from './csv.ts';

export interface StepSample {
  readonly localBatch: number;
  /** Seconds per iteration, synchronisation included. */
  readonly stepTime: number;
  /** The synchronisation part of `stepTime`; paid once per iteration even with gradient accumulation. */
  readonly syncTime: number;
}

/** Per-epoch cumulative iteration counts and validation metric measured at one global batch size. */
export interface ValidationTrace {
  readonly globalBatch: number;
  readonly iterationsAtEpoch: readonly number[];
  /** The validation metric after each epoch (accuracy, F1, hit rate, WER or loss, per application). */
  readonly metricAtEpoch: readonly number[];
}

export interface PhillyApp {
  readonly name: string;
  /** Measured placements, keyed by the smallest rotation of the workers-per-node digit string. */
  readonly placements: ReadonlyMap<string, readonly StepSample[]>;
  /** Mean step times by node count, then replica count (scalability.csv plus placement means). */
  readonly grid: ReadonlyMap<number, ReadonlyMap<number, readonly StepSample[]>>;
  readonly validation: readonly ValidationTrace[];
  /** Largest local batch one step computes; larger local batches become gradient accumulation. */
  readonly maxLocalBatch: number;
}

export interface PhillyAppSources {
  readonly placementsCsv: string;
  readonly scalabilityCsv: string;
  /** Validation CSV text by global batch size. */
  readonly validationCsv: ReadonlyMap<number, string>;
}

interface SampleSum {
  localBatch: number;
  stepTime: number;
  syncTime: number;
  n: number;
}

function sortedSamples(sums: Iterable<SampleSum>): StepSample[] {
  return [...sums]
    .map((s) => ({ localBatch: s.localBatch, stepTime: s.stepTime / s.n, syncTime: s.syncTime / s.n }))
    .sort((a, b) => a.localBatch - b.localBatch);
}

function addSample(into: Map<number, SampleSum>, localBatch: number, stepTime: number, syncTime: number): void {
  const sum = into.get(localBatch);
  if (sum === undefined) into.set(localBatch, { localBatch, stepTime, syncTime, n: 1 });
  else {
    sum.stepTime += stepTime;
    sum.syncTime += syncTime;
    sum.n += 1;
  }
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** `maxLocalBatch` overrides the measured maximum (e.g. yolov3: 8, the rest is accumulation). */
export function buildPhillyApp(name: string, sources: PhillyAppSources, maxLocalBatch?: number): PhillyApp {
  const placementSums = new Map<string, Map<number, SampleSum>>();
  const gridSums = new Map<number, Map<number, Map<number, SampleSum>>>();
  const addToGrid = (nodes: number, replicas: number, localBatch: number, step: number, sync: number): void => {
    const byReplicas = getOrCreate(gridSums, nodes, () => new Map<number, Map<number, SampleSum>>());
    addSample(
      getOrCreate(byReplicas, replicas, () => new Map<number, SampleSum>()),
      localBatch,
      step,
      sync,
    );
  };

  const placementsSource = `${name}/placements.csv`;
  let measuredMaxLocal = 0;
  for (const row of parseCsv(sources.placementsCsv, placementsSource)) {
    const placement = stringColumn(row, 'placement', placementsSource);
    if (!/^[1-9]+$/.test(placement)) throw new Error(`${placementsSource}: bad placement "${placement}"`);
    const localBatch = numberColumn(row, 'local_bsz', placementsSource);
    const step = numberColumn(row, 'step_time', placementsSource);
    const sync = numberColumn(row, 'sync_time', placementsSource);
    measuredMaxLocal = Math.max(measuredMaxLocal, localBatch);
    // The regex above guarantees ASCII digits, so splitting into characters is safe.
    const counts = placement.split('').map(Number);
    const key = smallestRotation(counts).join('');
    addSample(
      getOrCreate(placementSums, key, () => new Map<number, SampleSum>()),
      localBatch,
      step,
      sync,
    );
    addToGrid(
      counts.length,
      counts.reduce((sum, c) => sum + c, 0),
      localBatch,
      step,
      sync,
    );
  }

  const scalabilitySource = `${name}/scalability.csv`;
  for (const row of parseCsv(sources.scalabilityCsv, scalabilitySource)) {
    addToGrid(
      numberColumn(row, 'num_nodes', scalabilitySource),
      numberColumn(row, 'num_replicas', scalabilitySource),
      numberColumn(row, 'local_bsz', scalabilitySource),
      numberColumn(row, 'step_time', scalabilitySource),
      numberColumn(row, 'sync_time', scalabilitySource),
    );
  }

  const validation = [...sources.validationCsv.entries()]
    .map(([globalBatch, text]) => {
      const source = `${name}/validation-${globalBatch}.csv`;
      const rows = parseCsv(text, source);
      return {
        globalBatch,
        iterationsAtEpoch: rows.map((row) => numberColumn(row, 'iteration', source)),
        metricAtEpoch: rows.map((row) => numberColumn(row, 'metric', source)),
      };
    })
    .sort((a, b) => a.globalBatch - b.globalBatch);
  if (validation.length === 0) throw new Error(`${name}: no validation-<batch>.csv`);

  return {
    name,
    placements: new Map([...placementSums].map(([key, sums]) => [key, sortedSamples(sums.values())])),
    grid: new Map(
      [...gridSums].map(([nodes, byReplicas]) => [
        nodes,
        new Map([...byReplicas].map(([replicas, sums]) => [replicas, sortedSamples(sums.values())])),
      ]),
    ),
    validation,
    maxLocalBatch: maxLocalBatch ?? measuredMaxLocal,
  };
}

/**
 * The lexicographically smallest rotation of a workers-per-node sequence: the traces store each
 * placement once under that form (`21` is stored as `12`, `2121` as `1212`).
 */
export function smallestRotation(counts: readonly number[]): number[] {
  let best = [...counts];
  for (let shift = 1; shift < counts.length; shift++) {
    const rotated = [...counts.slice(shift), ...counts.slice(0, shift)];
    if (compareSequences(rotated, best) < 0) best = rotated;
  }
  return best;
}

function compareSequences(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}
