// A job declaring a training style whose chief waits for every worker slot (ParameterServerStrategy)
// is admitted with its maximum of workers or not at all; the same job without the declaration is
// admitted below its maximum. One node with 4 CPUs; PS and workers ask 1 CPU each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, deleteTFJob, elasticJob, getTFJob, livePods, type TestTFJob } from '../../support/tfjob.ts';

const STYLE = 'tfjob-operator.kubeflow.org/training-style';

describe('training styles that need every worker slot', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('style');
    pool = await createPool('style', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  function job(name: string, max: number, style?: string): TestTFJob {
    const j = onPool(elasticJob(name, { ps: { cpu: '1' }, worker: { cpu: '1' }, min: 1, max }), pool);
    return style === undefined ? j : { ...j, metadata: { ...j.metadata, annotations: { [STYLE]: style } } };
  }

  const workers = (j: TestTFJob) => (j.status?.scheduling as { workersSummary?: string; queue?: string } | undefined) ?? {};

  async function gone(name: string): Promise<void> {
    await deleteTFJob(ns, name);
    await eventually(async () => (await livePods(ns, name)).length === 0, { timeoutMs: 60_000, what: `${name} pods gone` });
  }

  it('waits rather than starting a ParameterServerStrategy job below its maximum', async () => {
    // PS + 4 workers need 5 CPUs of 4: with its minimum raised to its maximum it cannot start.
    await createTFJob(ns, job('pss-big', 4, 'ParameterServerStrategy'));
    const waiting = await eventually(
      async () => {
        const j = await getTFJob(ns, 'pss-big');
        return workers(j).workersSummary === '0/4/4' && workers(j).queue === 'Waiting' ? j : false;
      },
      { timeoutMs: 60_000, what: 'pss-big waiting with min = max = 4' },
    );
    expect(workers(waiting).workersSummary).toBe('0/4/4');
    // The undeclared twin is admitted below its maximum (PS + 3 workers), which is what the style prevents.
    await createTFJob(ns, job('plain', 4));
    await eventually(async () => workers(await getTFJob(ns, 'plain')).workersSummary === '3/1/4', {
      timeoutMs: 60_000,
      what: 'plain admitted with 3 of 4 workers',
    });
    expect(await livePods(ns, 'pss-big')).toEqual([]);
    await gone('plain');
    await gone('pss-big');
  }, 180_000);

  it('admits a ParameterServerStrategy job that fits with all its workers', async () => {
    await createTFJob(ns, job('pss-fits', 3, 'ParameterServerStrategy'));
    await eventually(
      async () => {
        const pods = await livePods(ns, 'pss-fits');
        return pods.length === 4 && workers(await getTFJob(ns, 'pss-fits')).workersSummary === '3/3/3';
      },
      { timeoutMs: 60_000, what: 'pss-fits admitted with 3 of 3 workers' },
    );
  }, 120_000);
});
