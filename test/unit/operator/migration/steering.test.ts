// The steering of a migrated worker's replacement: the target this operator set, and, after a restart,
// the target a job's status still records as Moving (the new operator's first pass may place the
// replacement before SpeCon's first round adopts the move).
import { describe, expect, it } from 'vitest';
import { toTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { MigrationStatus } from '../../../../src/api/v1/schema.ts';
import { MigrationSteering, movingTarget, STEERING_TTL_MS, type RecordedTarget } from '../../../../src/operator/migration/steering.ts';

const T0 = Date.parse('2026-11-28T12:00:00Z');
const last = (state: 'Moving' | 'Migrated' | 'TargetLost', time = '2026-11-28T12:00:00Z') => ({
  pod: 'slow-worker-1',
  from: 'a',
  to: 'b',
  time,
  state,
});

function entry(migration?: MigrationStatus): TFJobEntry {
  return toTFJobEntry({
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name: 'slow', namespace: 'ns', uid: 'u' },
    spec: { tfReplicaSpecs: { Worker: { replicas: 2, template: { spec: { containers: [{ name: 'tensorflow', image: 'tf' }] } } } } },
    ...(migration === undefined ? {} : { status: { conditions: [], replicaStatuses: {}, migration } }),
  });
}

describe('movingTarget', () => {
  it('is the target and start of a move the status says is Moving, and nothing otherwise', () => {
    expect(movingTarget(entry({ migrations: 0, last: last('Moving') }))).toEqual({ node: 'b', since: T0 });
    expect(movingTarget(entry({ migrations: 1, last: last('Migrated') }))).toBeUndefined();
    expect(movingTarget(entry({ migrations: 0, last: last('TargetLost') }))).toBeUndefined();
    expect(movingTarget(entry({ migrations: 0, last: last('Moving', 'not a time') }))).toBeUndefined();
    expect(movingTarget(entry())).toBeUndefined();
    expect(movingTarget(undefined)).toBeUndefined();
  });
});

describe('MigrationSteering', () => {
  const at = { now: T0 };
  const recorded = new Map<string, RecordedTarget>();
  const steering = () =>
    new MigrationSteering(
      () => at.now,
      (job) => recorded.get(job),
    );

  it("steers a restarted operator's replacement to the target the status records, until the move lapses", () => {
    at.now = T0 + 1_000;
    recorded.set('ns/slow', { node: 'b', since: T0 });
    const s = steering();
    expect(s.preferredNode('ns/slow')).toBe('b');
    expect(s.preferredNode('ns/other')).toBeUndefined();
    at.now = T0 + STEERING_TTL_MS;
    expect(s.preferredNode('ns/slow')).toBeUndefined();
  });

  it('a move it settled is not steered again while the cached status still says Moving', () => {
    at.now = T0 + 1_000;
    recorded.set('ns/slow', { node: 'b', since: T0 });
    const s = steering();
    s.steer('ns/slow', 'b');
    at.now += 2_000;
    s.done('ns/slow');
    expect(s.preferredNode('ns/slow')).toBeUndefined();
    // A later move (a newer status) is steered again.
    recorded.set('ns/slow', { node: 'c', since: at.now + 1_000 });
    expect(s.preferredNode('ns/slow')).toBe('c');
  });

  it('its own target comes first, and lapses after its time to live', () => {
    at.now = T0;
    recorded.clear();
    const s = steering();
    s.steer('ns/slow', 'c', 10_000);
    expect(s.preferredNode('ns/slow')).toBe('c');
    at.now = T0 + 10_000;
    expect(s.preferredNode('ns/slow')).toBeUndefined();
  });
});
