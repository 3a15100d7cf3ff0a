// Which grants the operator asks for before it starts the queue caches, and what it concludes.
import { describe, expect, it } from 'vitest';
import { checkQueueAccess, describeQuestion, type AccessQuestion } from '../../../../src/operator/scheduling/queues/access.ts';

/** A reviewer that allows exactly the listed questions (as `describeQuestion` prints them). */
function reviewer(allowed: readonly string[]) {
  const asked: string[] = [];
  const review = async (q: AccessQuestion): Promise<boolean> => {
    asked.push(describeQuestion(q));
    return allowed.includes(describeQuestion(q));
  };
  return { review, asked };
}

const CQ = 'tfjob-operator.kubeflow.org/clusterqueues';
const LQ = 'tfjob-operator.kubeflow.org/localqueues';

describe('checkQueueAccess', () => {
  it('cluster-wide: reads both kinds cluster-wide and may write ClusterQueue statuses', async () => {
    const all = [`list ${CQ} (cluster-wide)`, `watch ${CQ} (cluster-wide)`, `list ${LQ} (cluster-wide)`, `watch ${LQ} (cluster-wide)`];
    const ns = ['list namespaces (cluster-wide)', 'watch namespaces (cluster-wide)'];
    const { review, asked } = reviewer([...all, ...ns, `update ${CQ}/status (cluster-wide)`]);
    expect(await checkQueueAccess(review, [])).toEqual({ missingReads: [], writeClusterQueueStatus: true, readNamespaces: true });
    expect(asked.sort()).toEqual([...all, ...ns, `update ${CQ}/status (cluster-wide)`].sort());
  });

  it('namespaced: asks for LocalQueues in each managed namespace only', async () => {
    const { review, asked } = reviewer([`list ${CQ} (cluster-wide)`, `watch ${CQ} (cluster-wide)`, `list ${LQ} in a`, `watch ${LQ} in a`]);
    expect(await checkQueueAccess(review, ['a', 'b'])).toEqual({
      missingReads: [`list ${LQ} in b`, `watch ${LQ} in b`],
      writeClusterQueueStatus: false,
      readNamespaces: false,
    });
    expect(asked.filter((q) => q.includes('localqueues')).sort()).toEqual(
      [`list ${LQ} in a`, `watch ${LQ} in a`, `list ${LQ} in b`, `watch ${LQ} in b`].sort(),
    );
  });

  it('names every missing ClusterQueue read when the install binds roles per namespace only', async () => {
    const { review } = reviewer([`list ${LQ} in a`, `watch ${LQ} in a`]);
    const access = await checkQueueAccess(review, ['a']);
    expect(access.missingReads).toEqual([`list ${CQ} (cluster-wide)`, `watch ${CQ} (cluster-wide)`]);
  });
});
