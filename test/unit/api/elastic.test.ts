import { describe, expect, it } from 'vitest';
import { resolveElastic } from '../../../src/api/v1/elastic.ts';
import { formatFieldError } from '../../../src/api/v1/field-error.ts';
import { parseTFJob } from '../../../src/api/v1/parse.ts';
import type { TFJob } from '../../../src/api/v1/schema.ts';
import { clamp, elasticWorkerTarget } from '../../../src/reconciler/tfjob/job-view.ts';

const tf = { name: 'tensorflow', image: 'tf' };

function job(spec: Record<string, unknown>, annotations?: Record<string, string>, workerReplicas?: number, workerKey = 'Worker'): TFJob {
  const parsed = parseTFJob({
    metadata: { name: 'e', ...(annotations ? { annotations } : {}) },
    spec: {
      tfReplicaSpecs: {
        [workerKey]: { ...(workerReplicas === undefined ? {} : { replicas: workerReplicas }), template: { spec: { containers: [tf] } } },
      },
      ...spec,
    },
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.job;
}

const MIN = 'tfjob-operator.kubeflow.org/min-workers';
const MAX = 'tfjob-operator.kubeflow.org/max-workers';

describe('elastic bounds (docs/tfjob-extensions.md)', () => {
  it('no elasticPolicy and no annotation: not elastic', () => {
    expect(resolveElastic(job({}, undefined, 4))).toEqual({ elastic: false, errors: [] });
  });

  it('explicit bounds', () => {
    expect(resolveElastic(job({ elasticPolicy: { minReplicas: 2, maxReplicas: 6 } }, undefined, 4))).toMatchObject({
      elastic: true,
      bounds: { min: 2, max: 6 },
    });
  });

  it('min defaults to 1, max to max(min, Worker.replicas)', () => {
    expect(resolveElastic(job({ elasticPolicy: {} }, undefined, 4))).toMatchObject({ bounds: { min: 1, max: 4 } });
    expect(resolveElastic(job({ elasticPolicy: { minReplicas: 6 } }, undefined, 4))).toMatchObject({ bounds: { min: 6, max: 6 } });
    expect(resolveElastic(job({ elasticPolicy: { maxReplicas: 3 } }))).toMatchObject({ bounds: { min: 1, max: 3 } });
  });

  it('annotations for the upstream CRD; the spec wins field by field', () => {
    expect(resolveElastic(job({}, { [MIN]: '2', [MAX]: '8' }, 2))).toMatchObject({ elastic: true, bounds: { min: 2, max: 8 } });
    expect(resolveElastic(job({ elasticPolicy: { minReplicas: 3 } }, { [MIN]: '1', [MAX]: '5' }))).toMatchObject({
      bounds: { min: 3, max: 5 },
    });
  });

  it('a lowercase worker key still counts as the Worker type', () => {
    expect(resolveElastic(job({ elasticPolicy: {} }, undefined, 5, 'worker'))).toMatchObject({
      elastic: true,
      bounds: { min: 1, max: 5 },
      errors: [],
    });
  });

  it('reports bad bounds by field', () => {
    const errors = (j: TFJob) => resolveElastic(j).errors.map(formatFieldError);
    expect(errors(job({ elasticPolicy: { minReplicas: 4, maxReplicas: 2 } }))).toEqual([
      'spec.elasticPolicy.maxReplicas: Invalid value: must be greater than or equal to spec.elasticPolicy.minReplicas',
    ]);
    expect(errors(job({}, { [MIN]: 'two' }))).toEqual([
      'metadata.annotations[tfjob-operator.kubeflow.org/min-workers]: Invalid value: "two": must be a non-negative integer',
    ]);
    // Whitespace is a typo, not a number (it was trimmed and accepted before).
    expect(errors(job({}, { [MIN]: ' 2', [MAX]: '4 ' }))).toEqual([
      'metadata.annotations[tfjob-operator.kubeflow.org/min-workers]: Invalid value: " 2": must be a non-negative integer',
      'metadata.annotations[tfjob-operator.kubeflow.org/max-workers]: Invalid value: "4 ": must be a non-negative integer',
    ]);
    expect(errors(job({}, { [MIN]: '5', [MAX]: '3' }))).toEqual([
      'metadata.annotations[tfjob-operator.kubeflow.org/max-workers]: Invalid value: 3: must be greater than or equal to the minimum worker count (5)',
    ]);
  });

  it('a minimum above MAX_ELASTIC_WORKERS (512 slots in TF_CONFIG) is refused; a larger maximum is only clamped later', () => {
    const errors = (j: TFJob) => resolveElastic(j).errors.map(formatFieldError);
    expect(errors(job({ elasticPolicy: { minReplicas: 513, maxReplicas: 600 } }))).toEqual([
      'spec.elasticPolicy.minReplicas: Invalid value: 513: spec.elasticPolicy.minReplicas in body should be less than or equal to 512',
    ]);
    expect(errors(job({}, { [MIN]: '1000' }, 1000))).toEqual([
      'metadata.annotations[tfjob-operator.kubeflow.org/min-workers]: Invalid value: 1000: metadata.annotations[tfjob-operator.kubeflow.org/min-workers] in body should be less than or equal to 512',
    ]);
    expect(errors(job({ elasticPolicy: { minReplicas: 512, maxReplicas: 2 ** 31 - 1 } }))).toEqual([]);
  });

  it('elastic without a Worker type is an error', () => {
    const parsed = parseTFJob({
      metadata: { name: 'e' },
      spec: { elasticPolicy: { maxReplicas: 2 }, tfReplicaSpecs: { Chief: { template: { spec: { containers: [tf] } } } } },
    });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(resolveElastic(parsed.job).errors.map(formatFieldError)).toEqual([
      'spec.elasticPolicy: Invalid value: requires a Worker entry in spec.tfReplicaSpecs',
    ]);
  });
});

describe('current size of an elastic worker group', () => {
  const bounds = { min: 2, max: 5 };
  it('scheduler decision first, then the recorded size, then max; always clamped', () => {
    expect(elasticWorkerTarget(bounds, 3, { workers: { current: 4 } })).toBe(3);
    expect(elasticWorkerTarget(bounds, undefined, { workers: { current: 4 } })).toBe(4);
    expect(elasticWorkerTarget(bounds, undefined, undefined)).toBe(5);
    expect(elasticWorkerTarget(bounds, 9, undefined)).toBe(5);
    expect(clamp(0, bounds)).toBe(2);
  });
});
