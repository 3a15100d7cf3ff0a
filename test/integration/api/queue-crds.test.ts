// The queue CRDs on the real API server: valid ClusterQueues and LocalQueues are stored as written,
// and each invalid one is rejected with a message naming the field.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { CLUSTER_QUEUES, QUEUE_GROUP, QUEUE_VERSION } from '../../../src/api/queues/types.ts';
import { adminKubeConfig, uniqueName } from '../../support/kube.ts';

const api = () => adminKubeConfig().makeApiClient(CustomObjectsApi);
const created: string[] = [];

async function createQueue(spec: Record<string, unknown>): Promise<{ ok: true } | { ok: false; message: string }> {
  const name = uniqueName('cq');
  try {
    await api().createClusterCustomObject({
      group: QUEUE_GROUP,
      version: QUEUE_VERSION,
      plural: CLUSTER_QUEUES,
      body: { apiVersion: `${QUEUE_GROUP}/${QUEUE_VERSION}`, kind: 'ClusterQueue', metadata: { name }, spec },
    });
    created.push(name);
    return { ok: true };
  } catch (err) {
    const raw = (err as { body?: string }).body ?? String(err);
    try {
      return { ok: false, message: (JSON.parse(raw) as { message: string }).message };
    } catch {
      return { ok: false, message: raw };
    }
  }
}

describe('ClusterQueue CRD', () => {
  afterAll(async () => {
    for (const name of created)
      await api().deleteClusterCustomObject({ group: QUEUE_GROUP, version: QUEUE_VERSION, plural: CLUSTER_QUEUES, name });
  });

  it('accepts quotas as integers or quantities, cohorts with limits, and a fair-sharing weight', async () => {
    expect(await createQueue({ nominalQuota: { cpu: '64', memory: '256Gi', 'nvidia.com/gpu': 8 } })).toEqual({ ok: true });
    expect(
      await createQueue({
        cohort: 'research',
        nominalQuota: { 'nvidia.com/gpu': 8, cpu: '500m' },
        borrowingLimit: { 'nvidia.com/gpu': 4 },
        lendingLimit: { 'nvidia.com/gpu': '2' },
        fairSharing: { weight: '2' },
      }),
    ).toEqual({ ok: true });
  });

  it('accepts namespace selectors: {} (every namespace), labels, and each expression operator', async () => {
    expect(await createQueue({ nominalQuota: { cpu: '1' }, namespaceSelector: {} })).toEqual({ ok: true });
    expect(
      await createQueue({
        nominalQuota: { cpu: '1' },
        namespaceSelector: {
          matchLabels: { team: 'a' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['x', 'y'] },
            { key: 'env', operator: 'NotIn', values: ['prod'] },
            { key: 'research', operator: 'Exists' },
            { key: 'legacy', operator: 'DoesNotExist' },
          ],
        },
      }),
    ).toEqual({ ok: true });
  });

  it.each([
    ['a negative quota', { nominalQuota: { cpu: '-1' } }, 'spec.nominalQuota'],
    ['a negative integer quota', { nominalQuota: { 'nvidia.com/gpu': -2 } }, 'spec.nominalQuota'],
    ['a quota that is not a quantity', { nominalQuota: { cpu: 'lots' } }, 'spec.nominalQuota'],
    ['a borrowing limit without a cohort', { nominalQuota: { cpu: '1' }, borrowingLimit: { cpu: '1' } }, 'spec.borrowingLimit'],
    [
      'a lending limit above the nominal quota',
      { cohort: 'c', nominalQuota: { cpu: '1' }, lendingLimit: { cpu: '2' } },
      'spec.lendingLimit',
    ],
    [
      'a limit on a resource without quota',
      { cohort: 'c', nominalQuota: { cpu: '1' }, borrowingLimit: { memory: '1Gi' } },
      'spec.borrowingLimit',
    ],
    ['a zero weight', { nominalQuota: { cpu: '1' }, fairSharing: { weight: 0 } }, 'spec.fairSharing.weight'],
    ['a cohort that is not a DNS label', { cohort: 'Team A', nominalQuota: { cpu: '1' } }, 'spec.cohort'],
    [
      'a selector operator that does not exist',
      { nominalQuota: { cpu: '1' }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Equals', values: ['a'] }] } },
      'spec.namespaceSelector.matchExpressions[0].operator',
    ],
    [
      'In without values',
      { nominalQuota: { cpu: '1' }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In' }] } },
      'spec.namespaceSelector.matchExpressions[0].values',
    ],
    [
      'Exists with values',
      { nominalQuota: { cpu: '1' }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists', values: ['a'] }] } },
      'spec.namespaceSelector.matchExpressions[0].values',
    ],
    [
      'a label value that is not a string',
      { nominalQuota: { cpu: '1' }, namespaceSelector: { matchLabels: { team: 1 } } },
      'spec.namespaceSelector.matchLabels.team',
    ],
  ])('rejects %s, naming the field', async (_what, spec, field) => {
    const res = await createQueue(spec);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.message).toContain(field);
  });
});
