import { describe, expect, it } from 'vitest';
import { applyDefaults, normaliseReplicaTypeKeys } from '../../../src/api/v1/defaults.ts';
import { parseTFJob } from '../../../src/api/v1/parse.ts';
import type { TFJob } from '../../../src/api/v1/schema.ts';

function job(spec: Record<string, unknown>): TFJob {
  const parsed = parseTFJob({ metadata: { name: 'test-tfjob', namespace: 'default' }, spec });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.job;
}

const container = (extra: Record<string, unknown> = {}) => ({ name: 'tensorflow', image: 'tf', ...extra });

describe('TestSetDefaultTFJob (compat §1.3)', () => {
  it('replicas default to 1, restartPolicy to Never, cleanPodPolicy to None, successPolicy to ""', () => {
    const d = applyDefaults(job({ tfReplicaSpecs: { Worker: { template: { spec: { containers: [container()] } } } } }));
    expect(d.spec.tfReplicaSpecs.Worker).toMatchObject({ replicas: 1, restartPolicy: 'Never' });
    expect(d.spec.runPolicy.cleanPodPolicy).toBe('None');
    expect(d.spec.successPolicy).toBe('');
    expect(d.spec.enableDynamicWorker).toBe(false);
  });

  it('an explicit "" restartPolicy becomes Never; explicit values are kept', () => {
    const d = applyDefaults(
      job({
        tfReplicaSpecs: {
          Worker: { restartPolicy: '', template: { spec: { containers: [container()] } } },
          PS: { replicas: 3, restartPolicy: 'OnFailure', template: { spec: { containers: [container()] } } },
        },
      }),
    );
    expect(d.spec.tfReplicaSpecs.Worker?.restartPolicy).toBe('Never');
    expect(d.spec.tfReplicaSpecs.PS).toMatchObject({ replicas: 3, restartPolicy: 'OnFailure' });
  });

  it('custom cleanPodPolicy is kept; an explicit "" is kept too (tf-operator then cleans All)', () => {
    const spec = { tfReplicaSpecs: { Worker: { template: { spec: { containers: [container()] } } } } };
    expect(applyDefaults(job({ ...spec, runPolicy: { cleanPodPolicy: 'All' } })).spec.runPolicy.cleanPodPolicy).toBe('All');
    expect(applyDefaults(job({ ...spec, runPolicy: { cleanPodPolicy: '' } })).spec.runPolicy.cleanPodPolicy).toBe('');
  });

  it('adds tfjob-port 2222 (no protocol) to the tensorflow container when missing', () => {
    const d = applyDefaults(
      job({
        tfReplicaSpecs: {
          Worker: { template: { spec: { containers: [container({ ports: [{ name: 'metrics', containerPort: 9090 }] })] } } },
        },
      }),
    );
    expect(d.spec.tfReplicaSpecs.Worker?.template.spec?.containers[0]?.ports).toEqual([
      { name: 'metrics', containerPort: 9090 },
      { name: 'tfjob-port', containerPort: 2222 },
    ]);
  });

  it('keeps an existing tfjob-port', () => {
    const d = applyDefaults(
      job({
        tfReplicaSpecs: {
          Worker: { template: { spec: { containers: [container({ ports: [{ name: 'tfjob-port', containerPort: 3333 }] })] } } },
        },
      }),
    );
    expect(d.spec.tfReplicaSpecs.Worker?.template.spec?.containers[0]?.ports).toEqual([{ name: 'tfjob-port', containerPort: 3333 }]);
  });

  it('without a tensorflow container the port goes to container 0', () => {
    const d = applyDefaults(
      job({
        tfReplicaSpecs: {
          Worker: {
            template: {
              spec: {
                containers: [
                  { name: 'main', image: 'x' },
                  { name: 'side', image: 'y' },
                ],
              },
            },
          },
        },
      }),
    );
    const containers = d.spec.tfReplicaSpecs.Worker?.template.spec?.containers;
    expect(containers?.[0]?.ports).toEqual([{ name: 'tfjob-port', containerPort: 2222 }]);
    expect(containers?.[1]?.ports).toBeUndefined();
  });

  it('never modifies its input (defaults are in memory only, never written back)', () => {
    const input = job({ tfReplicaSpecs: { worker: { template: { spec: { containers: [container()] } } } } });
    const before = JSON.stringify(input);
    applyDefaults(input);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('TestSetTypeNames (case-insensitive replica types)', () => {
  it('WoRker → Worker, ps → PS, evaluator → Evaluator; unknown keys stay as written', () => {
    const d = applyDefaults(
      job({
        tfReplicaSpecs: {
          WoRker: { template: { spec: { containers: [container()] } } },
          ps: { template: { spec: { containers: [container()] } } },
          evaluator: { template: { spec: { containers: [container()] } } },
          Foo: { template: { spec: { containers: [container()] } } },
        },
      }),
    );
    expect(Object.keys(d.spec.tfReplicaSpecs).sort()).toEqual(['Evaluator', 'Foo', 'PS', 'Worker']);
  });

  it('with two spellings of one type the canonical one wins, deterministically', () => {
    expect(normaliseReplicaTypeKeys({ worker: 1, Worker: 2 })).toEqual({ Worker: 2 });
    expect(normaliseReplicaTypeKeys({ WORKER: 1, worker: 2 })).toEqual({ Worker: 1 });
  });
});
