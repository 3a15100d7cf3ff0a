import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../src/api/v1/parse.ts';

const tf = { name: 'tensorflow', image: 'tf' };

describe('toTFJobEntry (the TFJob cache transform)', () => {
  it('holds a valid job parsed, defaulted and without errors, deeply frozen', () => {
    const entry = toTFJobEntry({
      apiVersion: 'kubeflow.org/v1',
      kind: 'TFJob',
      metadata: { name: 'ok', namespace: 'ns', resourceVersion: '7' },
      spec: { tfReplicaSpecs: { worker: { replicas: 2, template: { spec: { containers: [tf] } } } } },
    });
    expect(entry.ok).toBe(true);
    if (!entry.ok) return;
    expect(entry.metadata).toBe(entry.job.metadata);
    expect(entry.errors).toEqual([]);
    expect(entry.defaulted.spec.tfReplicaSpecs.Worker?.restartPolicy).toBe('Never');
    expect(entry.defaulted.spec.tfReplicaSpecs.Worker?.template.spec?.containers[0]?.ports?.[0]?.name).toBe('tfjob-port');
    expect(Object.isFrozen(entry.job.spec?.tfReplicaSpecs?.worker?.template?.spec?.containers[0])).toBe(true);
    expect(Object.isFrozen(entry.defaulted.spec.tfReplicaSpecs.Worker?.template.spec?.containers)).toBe(true);
  });

  it('keeps the validation errors of a job that parses but may not run', () => {
    const entry = toTFJobEntry({
      metadata: { name: 'bad' },
      spec: { tfReplicaSpecs: { Worker: { template: { spec: { containers: [] } } } } },
    });
    expect(entry.ok && entry.errors.map((e) => e.field)).toContain('spec.tfReplicaSpecs[Worker].template.spec.containers');
  });

  it('keeps an unparsable job visible: name, stored status and the message naming the field', () => {
    const entry = toTFJobEntry({
      metadata: { name: 'x', namespace: 'ns' },
      spec: { tfReplicaSpecs: 'nope' },
      status: { startTime: '2026-01-01T00:00:00Z' },
    });
    expect(entry).toMatchObject({
      ok: false,
      metadata: { name: 'x', namespace: 'ns' },
      message: 'spec.tfReplicaSpecs: expected record',
      status: { startTime: '2026-01-01T00:00:00Z' },
    });
  });

  it('an unparsable status is read as empty', () => {
    const entry = toTFJobEntry({ metadata: { name: 'x' }, spec: 'nope', status: { conditions: 'nope' } });
    expect(entry.ok ? undefined : entry.status).toEqual({});
  });
});
