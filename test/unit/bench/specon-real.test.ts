import { describe, expect, it } from 'vitest';
import {
  CONVERGED_WORKER_LIMIT,
  CONVERGED_WORKERS,
  parseSpeconConditions,
  podsOf,
  SPECON_MIX,
  speconOperatorFlags,
  speconTfJob,
} from '../../../bench/lib/specon-mix.ts';
import { movesTable, podsOnNode, restartOf, speconSeries, speconSvg, type SpeconRunRecord } from '../../../bench/lib/specon-report.ts';

type Spec = { elasticPolicy?: { minReplicas: number; maxReplicas: number }; tfReplicaSpecs: Record<string, { replicas: number }> };
const specOf = (job: (typeof SPECON_MIX)[number]) => speconTfJob(job)['spec'] as Spec;

function run(extra: Partial<SpeconRunRecord> = {}): SpeconRunRecord {
  return {
    condition: 'specon',
    repeat: 1,
    startedAt: '2026-11-29T00:00:00Z',
    loadAverage: { start: 1, mean: 2.25, end: 2 },
    completion: { a: 100 },
    samples: [],
    migrations: {},
    moves: [],
    restarts: {},
    ...extra,
  };
}

describe('specon-real mix', () => {
  it('has six or more jobs, some converged elastic ones SpeCon may move and some still learning', () => {
    expect(SPECON_MIX.length).toBeGreaterThanOrEqual(6);
    const converged = SPECON_MIX.filter((j) => j.kind === 'converged');
    expect(converged.length).toBeGreaterThan(0);
    expect(SPECON_MIX.some((j) => j.kind === 'learning')).toBe(true);
    for (const job of converged) {
      // elastic with a worker 1 besides the chief: what makes a job movable (src/operator/migration/inputs.ts)
      expect(specOf(job).elasticPolicy).toEqual({ minReplicas: CONVERGED_WORKERS, maxReplicas: CONVERGED_WORKERS });
      expect(specOf(job).tfReplicaSpecs['Worker']?.replicas).toBeGreaterThanOrEqual(2);
      expect(podsOf(job)).toBe(1 + CONVERGED_WORKERS);
    }
    for (const job of SPECON_MIX.filter((j) => j.kind === 'learning')) {
      expect(specOf(job).elasticPolicy).toBeUndefined();
      expect(podsOf(job)).toBe(1);
    }
  });

  it('leaves room on the 1-CPU second node for every converged job to move one worker', () => {
    const moved = SPECON_MIX.filter((j) => j.kind === 'converged').length * Number(CONVERGED_WORKER_LIMIT.replace('m', ''));
    expect(moved).toBeLessThan(1000);
  });

  it('runs the same FlowCon rounds in both conditions; only the policy differs', () => {
    const [flowcon, specon] = [speconOperatorFlags('flowcon'), speconOperatorFlags('specon')];
    expect(flowcon.slice(0, 2)).toEqual(['--vertical-policy', 'flowcon']);
    expect(specon.slice(0, 2)).toEqual(['--vertical-policy', 'specon']);
    expect(flowcon.slice(2)).toEqual(specon.slice(2));
  });

  it('rejects an unknown condition with a clear error', () => {
    expect(parseSpeconConditions('flowcon,specon')).toEqual(['flowcon', 'specon']);
    expect(() => parseSpeconConditions('flowcon,na')).toThrow(/--conditions: na is not one of flowcon, specon/);
  });
});

describe('specon-real report', () => {
  it("counts a job's pods on a node by the pod name's job prefix", () => {
    const pods = [
      { name: 'conv-1-worker-1', node: 'realnode-1' },
      { name: 'conv-1-worker-0', node: 'realnode-0' },
      { name: 'conv-10-worker-1', node: 'realnode-1' },
      { name: 'conv-1-ps-0', node: undefined },
    ];
    expect(podsOnNode(pods, 'conv-1', 'realnode-1')).toBe(1);
    expect(podsOnNode(pods, 'conv-1', 'realnode-0')).toBe(1);
  });

  it('tabulates each move with its time, pod, nodes and the replacement restart line', () => {
    const table = movesTable([
      run({
        migrations: { 'conv-1': 1, 'learn-1': 0 },
        moves: [
          {
            t: 40.4,
            job: 'conv-1',
            reason: 'WorkerMigrating',
            message: 'conv-1-worker-1 deleted on realnode-0 to be re-created on realnode-1 (same…',
          },
          { t: 41, job: 'conv-1', reason: 'WorkerMigrated', message: 'conv-1-worker-1 re-created on realnode-1 (left realnode-0; …' },
        ],
        restarts: { 'conv-1-worker-1': { sessionOpenAt: 75.6, globalStep: 900 } },
      }),
      run({ condition: 'flowcon' }),
    ]);
    expect(table).toContain(
      '| specon #1 | 2.3 | 1 | 40: conv-1-worker-1 realnode-0 → realnode-1 (training again 35 s later, at global step 900) |',
    );
    expect(table).toContain('| flowcon #1 | 2.3 | 0 | — |');
  });

  it("reads the replacement's restart from its timestamped log", () => {
    const t0 = Date.parse('2026-11-29T08:00:00Z');
    const log = '2026-11-29T08:01:00.5Z opening session (chief=False)\n2026-11-29T08:01:10.25Z session open after 9.7s, global step 1234\n';
    expect(restartOf(log, t0)).toEqual({ sessionOpenAt: 70.25, globalStep: 1234 });
    expect(restartOf('2026-11-29T08:01:00Z opening session (chief=False)\n', t0)).toBeUndefined();
  });

  it('plots the loss relative to the first one reported and skips samples without a value', () => {
    const samples = [
      { t: 0, job: 'a', podsOnSecondNode: 0 },
      { t: 3, job: 'a', podsOnSecondNode: 0, metric: 4 },
      { t: 6, job: 'a', podsOnSecondNode: 1, metric: 1 },
    ];
    expect(speconSeries(samples, 'relativeLoss')).toEqual([
      {
        name: 'a',
        points: [
          [3, 1],
          [6, 0.25],
        ],
      },
    ]);
    expect(speconSeries(samples, 'podsOnSecondNode')[0]?.points).toEqual([
      [0, 0],
      [3, 0],
      [6, 1],
    ]);
    const svg = speconSvg(run({ samples }), 'realnode-1');
    expect(svg.match(/<svg /g)?.length).toBe(5);
    expect(svg).toContain('pods on realnode-1');
  });
});
