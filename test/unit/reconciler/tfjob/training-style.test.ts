// A declared training style whose chief waits for every worker slot (ParameterServerStrategy,
// MultiWorkerMirroredStrategy) raises an elastic job's minimum to its maximum: admitted with all its
// workers or not at all. Other styles, and no declaration, keep the bounds; a typo is refused by name.
import { describe, expect, it } from 'vitest';
import { resolveElastic } from '../../../../src/api/v1/elastic.ts';
import { formatFieldError } from '../../../../src/api/v1/field-error.ts';
import { applyDefaults } from '../../../../src/api/v1/defaults.ts';
import { buildJobView } from '../../../../src/reconciler/tfjob/job-view.ts';
import { newTFJob } from './builders.ts';
import { parsed } from './job-helpers.ts';

const STYLE = 'tfjob-operator.kubeflow.org/training-style';

function elasticJob(style: string | undefined, max = 4) {
  return parsed(
    newTFJob(max, 1, {
      name: 'j',
      namespace: 'ns',
      spec: { elasticPolicy: { minReplicas: 1, maxReplicas: max } },
      ...(style === undefined ? {} : { annotations: { [STYLE]: style } }),
    }),
  );
}

describe('training-style annotation', () => {
  it('ParameterServerStrategy and MultiWorkerMirroredStrategy need every worker slot: min becomes max', () => {
    for (const style of ['ParameterServerStrategy', 'MultiWorkerMirroredStrategy']) {
      const raw = elasticJob(style);
      expect(buildJobView(raw, applyDefaults(raw), {}).elastic).toEqual({ min: 4, max: 4 });
    }
  });

  it('PS, Estimator or no declaration keep the elastic bounds', () => {
    for (const style of ['PS', 'Estimator', undefined]) {
      const raw = elasticJob(style);
      expect(buildJobView(raw, applyDefaults(raw), {}).elastic).toEqual({ min: 1, max: 4 });
    }
  });

  it('applies to the maximum in effect (clamped by --max-workers-per-job) and to operator-default elasticity', () => {
    const raw = elasticJob('ParameterServerStrategy', 10);
    expect(buildJobView(raw, applyDefaults(raw), { workerLimit: 3 }).elastic).toEqual({ min: 3, max: 3 });
    const fixed = parsed(newTFJob(2, 1, { name: 'j', namespace: 'ns', annotations: { [STYLE]: 'ParameterServerStrategy' } }));
    expect(buildJobView(fixed, applyDefaults(fixed), { defaultElastic: { min: 1, max: 4 } }).elastic).toEqual({ min: 4, max: 4 });
  });

  it('an unknown style is refused naming the annotation and the accepted values', () => {
    const errors = resolveElastic(elasticJob('ParameterServer')).errors.map(formatFieldError);
    expect(errors).toEqual([
      `metadata.annotations[${STYLE}]: Invalid value: "ParameterServer": must be one of ParameterServerStrategy, MultiWorkerMirroredStrategy, PS, Estimator`,
    ]);
  });
});
