// Queue objects in the operator, without a cluster: ClusterQueue validation, how a TFJob finds its
// queue, and the statuses written for ClusterQueues and LocalQueues.
import { describe, expect, it } from 'vitest';
import { LABEL_QUEUE_NAME, type ClusterQueue, type LocalQueue } from '../../../../src/api/queues/types.ts';
import { parseClusterQueue } from '../../../../src/api/queues/validate.ts';
import { queueDirectory } from '../../../../src/operator/scheduling/queues/directory.ts';
import { clusterQueueStatus, localQueueStatus, quantityString } from '../../../../src/operator/scheduling/queues/status.ts';
import type { QueueSummary } from '../../../../src/scheduler/index.ts';

const cq = (name: string, spec: ClusterQueue['spec']): ClusterQueue => ({ metadata: { name }, spec });
const lq = (namespace: string, name: string, clusterQueue: string): LocalQueue => ({
  metadata: { namespace, name },
  spec: { clusterQueue },
});

describe('parseClusterQueue', () => {
  it('turns quantities into canonical units and defaults the weight to 1', () => {
    expect(
      parseClusterQueue(
        cq('a', {
          cohort: 'c',
          nominalQuota: { cpu: '1500m', memory: '2Gi', 'nvidia.com/gpu': 4 },
          borrowingLimit: { 'nvidia.com/gpu': 2 },
        }),
      ),
    ).toEqual({
      ok: true,
      spec: {
        name: 'a',
        cohort: 'c',
        nominalQuota: { cpu: 1500, memory: 2 * 2 ** 30, 'nvidia.com/gpu': 4 },
        borrowingLimit: { 'nvidia.com/gpu': 2 },
        weight: 1,
      },
    });
  });

  it('names every field that is wrong', () => {
    const res = parseClusterQueue(
      cq('a', { nominalQuota: { cpu: '-1' }, borrowingLimit: { memory: '1Gi' }, lendingLimit: { cpu: '1' }, fairSharing: { weight: '0' } }),
    );
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.errors).toEqual([
        'spec.nominalQuota.cpu: "-1" is not a non-negative quantity',
        'spec.borrowingLimit: needs spec.cohort (a queue without a cohort cannot borrow)',
        'spec.lendingLimit: needs spec.cohort (a queue without a cohort lends nothing)',
        'spec.borrowingLimit.memory: memory has no nominal quota',
        'spec.lendingLimit.cpu: cpu has no nominal quota',
        'spec.fairSharing.weight: "0" is not a positive number',
      ]);
    }
  });
});

describe('queueDirectory', () => {
  const lookups = {
    clusterQueues: () => [cq('team-a', { nominalQuota: { cpu: '8' } }), cq('broken', { nominalQuota: { cpu: 'x' } })],
    localQueue: (ns: string, name: string): LocalQueue | undefined => {
      const all: Record<string, LocalQueue> = {
        'ml/a': lq('ml', 'a', 'team-a'),
        'ml/default': lq('ml', 'default', 'team-a'),
        'ml/bad': lq('ml', 'bad', 'broken'),
        'ml/gone': lq('ml', 'gone', 'nope'),
      };
      return all[`${ns}/${name}`];
    },
  };
  const dir = queueDirectory(lookups);

  it('uses valid ClusterQueues only, and tells why the others are not used', () => {
    expect(dir.specs.map((s) => s.name)).toEqual(['team-a']);
    expect(dir.invalid.get('broken')).toEqual(['spec.nominalQuota.cpu: "x" is not a non-negative quantity']);
  });

  it('resolves the label, else the namespace default LocalQueue, else no queue', () => {
    expect(dir.resolve('ml', { [LABEL_QUEUE_NAME]: 'a' })).toEqual({ queue: 'team-a', localQueue: 'ml/a' });
    expect(dir.resolve('ml', undefined)).toEqual({ queue: 'team-a', localQueue: 'ml/default' });
    expect(dir.resolve('other', undefined)).toEqual({});
  });

  it('a missing LocalQueue or a missing or invalid ClusterQueue keeps the job waiting with the reason', () => {
    expect(dir.resolve('ml', { [LABEL_QUEUE_NAME]: 'x' }).inadmissible).toBe(`LocalQueue ml/x (label ${LABEL_QUEUE_NAME}) does not exist`);
    expect(dir.resolve('ml', { [LABEL_QUEUE_NAME]: 'gone' }).inadmissible).toBe('ClusterQueue nope of LocalQueue ml/gone does not exist');
    expect(dir.resolve('ml', { [LABEL_QUEUE_NAME]: 'bad' }).inadmissible).toContain('ClusterQueue broken of LocalQueue ml/bad is invalid');
  });

  it('without the queue CRDs a job that names a queue waits, saying the CRDs are missing; others are unaffected', () => {
    const none = queueDirectory(undefined);
    expect(none.resolve('ml', { [LABEL_QUEUE_NAME]: 'a' }).inadmissible).toContain(
      'queue CRDs (LocalQueue, ClusterQueue) are not installed',
    );
    expect(none.resolve('ml', undefined)).toEqual({});
  });
});

describe('queue statuses', () => {
  const summary: QueueSummary = {
    name: 'team-a',
    pending: 2,
    admitted: 1,
    usage: { cpu: 9000, memory: 4 * 2 ** 30 },
    borrowed: { cpu: 1000 },
    heads: [
      { job: 'ml/j2', position: 1, reason: 'waiting for quota' },
      { job: 'cv/j3', position: 2, reason: 'waiting for quota' },
    ],
  };

  it('quantities read as a user would write them', () => {
    expect([
      quantityString('cpu', 1500),
      quantityString('cpu', 2000),
      quantityString('memory', 3 * 2 ** 30),
      quantityString('memory', 1000),
    ]).toEqual(['1500m', '2', '3Gi', '1000']);
  });

  it('a ClusterQueue says what it holds and who is next; its Active condition keeps its transition time while unchanged', () => {
    const status = clusterQueueStatus(cq('team-a', {}), summary, undefined, Date.UTC(2026, 0, 1));
    expect(status).toMatchObject({
      pendingJobs: 2,
      admittedJobs: 1,
      usage: { cpu: '9', memory: '4Gi' },
      borrowed: { cpu: '1' },
      heads: [
        { namespace: 'ml', name: 'j2', position: 1, reason: 'waiting for quota' },
        { namespace: 'cv', name: 'j3', position: 2, reason: 'waiting for quota' },
      ],
    });
    const again = clusterQueueStatus({ ...cq('team-a', {}), status }, summary, undefined, Date.UTC(2026, 0, 2));
    expect(again).toEqual(status);
    const broken = clusterQueueStatus({ ...cq('team-a', {}), status }, undefined, ['spec.nominalQuota.cpu: bad'], Date.UTC(2026, 0, 3));
    expect(broken.conditions).toEqual([
      {
        type: 'Active',
        status: 'False',
        reason: 'InvalidSpec',
        message: 'spec.nominalQuota.cpu: bad',
        lastTransitionTime: '2026-01-03T00:00:00.000Z',
      },
    ]);
  });

  it('a LocalQueue counts its own jobs and lists only them among the heads', () => {
    const status = localQueueStatus(
      lq('ml', 'a', 'team-a'),
      summary,
      [
        { key: 'ml/j1', localQueue: 'ml/a', running: true },
        { key: 'ml/j2', localQueue: 'ml/a', running: false },
        { key: 'cv/j3', localQueue: 'cv/b', running: false },
      ],
      undefined,
      0,
    );
    expect(status).toMatchObject({ pendingJobs: 1, admittedJobs: 1, heads: [{ namespace: 'ml', name: 'j2', position: 1 }] });
  });
});
