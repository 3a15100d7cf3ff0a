import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, formatFieldError } from '../../../src/api/v1/field-error.ts';
import { parseTFJob } from '../../../src/api/v1/parse.ts';
import { MSG_RESOURCE_NAME, MSG_RESOURCE_QUANTITY, isValidResourceName, validateTFJob } from '../../../src/api/v1/validation.ts';

const tf = { name: 'tensorflow', image: 'tensorflow/tensorflow:2.15.0' };

function errorsOf(raw: Record<string, unknown>): string[] {
  const parsed = parseTFJob(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  return validateTFJob(parsed.job).map(formatFieldError);
}

function jobWith(replicaSpecs: Record<string, unknown>, name = 'test-tfjob', extra: Record<string, unknown> = {}) {
  return { metadata: { name }, spec: { tfReplicaSpecs: replicaSpecs, ...extra } };
}

const worker = (containers: unknown[] = [tf]) => ({ template: { spec: { containers } } });

describe('TestValidateTFJob (tf-operator webhook checks, same messages)', () => {
  it('a valid job has no errors', () => {
    expect(errorsOf(jobWith({ Worker: worker() }))).toEqual([]);
  });

  it('name "0-test" is not a DNS-1035 label', () => {
    expect(errorsOf(jobWith({ Worker: worker() }, '0-test'))).toEqual([
      `metadata.name: Invalid value: "0-test": should match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('the suspendable annotation is "true" or "false", nothing else (it promises checkpoints)', () => {
    const withAnnotation = (value: string) => ({
      ...jobWith({ Worker: worker() }),
      metadata: { name: 'test-tfjob', annotations: { 'tfjob-operator.kubeflow.org/suspendable': value } },
    });
    expect(errorsOf(withAnnotation('true'))).toEqual([]);
    expect(errorsOf(withAnnotation('false'))).toEqual([]);
    expect(errorsOf(withAnnotation('yes'))).toEqual([
      'metadata.annotations[tfjob-operator.kubeflow.org/suspendable]: Invalid value: "yes": must be "true" or "false"',
    ]);
  });

  it('a name longer than 63 characters', () => {
    const [error] = errorsOf(jobWith({ Worker: worker() }, 'a'.repeat(64)));
    expect(error).toContain('should match: must be no more than 63 characters');
  });

  it('no containers gives two Required errors', () => {
    expect(errorsOf(jobWith({ Worker: worker([]) }))).toEqual([
      'spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must be specified',
      'spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must have at least one container with name tensorflow',
    ]);
  });

  it('empty image', () => {
    expect(errorsOf(jobWith({ Worker: worker([{ name: 'tensorflow', image: '' }]) }))).toEqual([
      'spec.tfReplicaSpecs[Worker].template.spec.containers[0].image: Required value: must be required',
    ]);
  });

  it('no tensorflow container', () => {
    expect(errorsOf(jobWith({ Worker: worker([{ name: 'main', image: 'x' }]) }))).toEqual([
      'spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: must have at least one container with name tensorflow',
    ]);
  });

  it('Chief and Master together are Forbidden', () => {
    expect(errorsOf(jobWith({ Chief: worker(), Master: worker() }))).toEqual([
      'spec.tfReplicaSpecs: Forbidden: must not have more than 1 Chief or Master role',
    ]);
  });

  it('missing tfReplicaSpecs', () => {
    expect(errorsOf({ metadata: { name: 'x' }, spec: {} })).toEqual(['spec.tfReplicaSpecs: Required value: must be required']);
  });

  it('v1.9: unsupported managedBy', () => {
    expect(errorsOf(jobWith({ Worker: worker() }, 'x', { runPolicy: { managedBy: 'other' } }))).toEqual([
      'spec.runPolicy.managedBy: Unsupported value: "other": supported values: "kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue"',
    ]);
  });
});

describe('our additional checks', () => {
  it('unknown and duplicated replica types', () => {
    expect(errorsOf(jobWith({ Worker: worker(), Workers: worker() }))).toEqual([
      'spec.tfReplicaSpecs: Invalid value: keys must be PS, Worker, Chief, Master or Evaluator (in any letter case)',
    ]);
    expect(errorsOf(jobWith({ Worker: worker(), worker: worker() }))).toEqual([
      'spec.tfReplicaSpecs: Invalid value: must not name the same replica type twice in different letter case',
    ]);
  });

  it('chief and master in any letter case', () => {
    expect(errorsOf(jobWith({ chief: worker(), MASTER: worker() }))).toEqual([
      'spec.tfReplicaSpecs: Forbidden: must not have more than 1 Chief or Master role',
    ]);
  });

  it('negative replicas and unknown policies', () => {
    expect(
      errorsOf(
        jobWith({ Worker: { ...worker(), replicas: -2, restartPolicy: 'Sometimes' } }, 'x', {
          successPolicy: 'Most',
          runPolicy: { cleanPodPolicy: 'Finished' },
        }),
      ),
    ).toEqual([
      'spec.tfReplicaSpecs.Worker.replicas: Invalid value: -2: spec.tfReplicaSpecs.Worker.replicas in body should be greater than or equal to 0',
      'spec.tfReplicaSpecs.Worker.restartPolicy: Unsupported value: "Sometimes": supported values: "", "Always", "OnFailure", "Never", "ExitCode"',
      'spec.runPolicy.cleanPodPolicy: Unsupported value: "Finished": supported values: "", "All", "Running", "None"',
      'spec.successPolicy: Unsupported value: "Most": supported values: "", "AllWorkers"',
    ]);
  });

  it('zero replicas and the empty-string policies are fine', () => {
    expect(
      errorsOf(
        jobWith({ Worker: { ...worker(), replicas: 0, restartPolicy: '' } }, 'x', { successPolicy: '', runPolicy: { cleanPodPolicy: '' } }),
      ),
    ).toEqual([]);
  });

  it('aggregates like Go: one error as is, several in brackets, duplicates once', () => {
    const one = [{ type: 'Required' as const, field: 'a' }];
    expect(aggregateFieldErrors(one)).toBe('a: Required value');
    expect(aggregateFieldErrors([...one, ...one, { type: 'Forbidden', field: 'b', detail: 'no' }])).toBe(
      '[a: Required value, b: Forbidden: no]',
    );
  });
});

describe('parse errors name the field', () => {
  it('reports the path in apiserver notation', () => {
    const parsed = parseTFJob({
      metadata: { name: 'x' },
      spec: { tfReplicaSpecs: { Worker: { replicas: 'two' } }, runPolicy: { suspend: 'yes' } },
    });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toContain('spec.tfReplicaSpecs[Worker].replicas: expected');
      expect(parsed.message).toContain('spec.runPolicy.suspend: expected boolean');
    }
  });

  it('a missing name is Required', () => {
    const parsed = parseTFJob({ metadata: {}, spec: {} });
    expect(parsed.ok ? '' : parsed.message).toBe('metadata.name: Required value');
  });

  it('accepts JSON nulls as absent fields', () => {
    const parsed = parseTFJob({
      metadata: { name: 'x' },
      spec: { runPolicy: null, tfReplicaSpecs: { Worker: { replicas: null, template: { spec: { containers: [tf] } } } } },
    });
    expect(parsed.ok).toBe(true);
  });
});

describe('container resources (ours: a job no node can ever fit must not wait forever)', () => {
  const withResources = (resources: Record<string, unknown>, init = false) => {
    const container = { ...tf, resources };
    return jobWith({
      Worker: { template: { spec: init ? { containers: [tf], initContainers: [container] } : { containers: [container] } } },
    });
  };

  it('accepts standard resources, hugepages and qualified extended resources', () => {
    const requests = { cpu: '500m', memory: '4Gi', 'ephemeral-storage': '1Ei', 'hugepages-2Mi': '64Mi', 'nvidia.com/gpu': 1 };
    expect(errorsOf(withResources({ requests, limits: { 'example.com/fpga': '2' } }))).toEqual([]);
  });

  it('rejects a resource name with a space, or without a domain, naming the field', () => {
    expect(errorsOf(withResources({ requests: { 'foo bar': '1', gpu: '1' } }))).toEqual([
      `spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.requests[foo bar]: Invalid value: "foo bar": ${MSG_RESOURCE_NAME}`,
      `spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": ${MSG_RESOURCE_NAME}`,
    ]);
  });

  it('rejects an amount that is no finite, non-negative quantity, in init containers too', () => {
    expect(errorsOf(withResources({ limits: { cpu: '1e400', memory: '-1Gi' } }, true))).toEqual([
      `spec.tfReplicaSpecs[Worker].template.spec.initContainers[0].resources.limits[cpu]: Invalid value: "1e400": ${MSG_RESOURCE_QUANTITY}`,
      `spec.tfReplicaSpecs[Worker].template.spec.initContainers[0].resources.limits[memory]: Invalid value: "-1Gi": ${MSG_RESOURCE_QUANTITY}`,
    ]);
  });

  it('knows qualified names as the API server does', () => {
    for (const ok of ['cpu', 'hugepages-1Gi', 'a.b/c', 'example.com/My_Resource.1']) expect(isValidResourceName(ok)).toBe(true);
    for (const bad of ['foo bar', 'gpu', '/gpu', 'Example.com/gpu', 'example.com/', 'example.com/-x', `example.com/${'x'.repeat(64)}`]) {
      expect(isValidResourceName(bad)).toBe(false);
    }
  });
});
