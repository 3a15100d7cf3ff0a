import { describe, expect, it } from 'vitest';
import { ANNOTATION_PROGRESS_REPLICA } from '../../../../src/api/v1/constants.ts';
import type { ReplicaType } from '../../../../src/api/v1/replica-types.ts';
import { progressSource } from '../../../../src/progress/signals/index.ts';

const job = (entries: [ReplicaType, number][]): Map<ReplicaType, number> => new Map(entries);

describe('the replica whose log carries progress', () => {
  it('is Chief 0, else Master 0, else Worker 0', () => {
    expect(
      progressSource(
        job([
          ['PS', 1],
          ['Worker', 4],
          ['Chief', 1],
        ]),
        undefined,
      ),
    ).toEqual({ kind: 'replica', type: 'Chief', index: 0 });
    expect(
      progressSource(
        job([
          ['Master', 1],
          ['Worker', 2],
        ]),
        undefined,
      ),
    ).toEqual({ kind: 'replica', type: 'Master', index: 0 });
    expect(
      progressSource(
        job([
          ['PS', 1],
          ['Worker', 2],
        ]),
        undefined,
      ),
    ).toEqual({ kind: 'replica', type: 'Worker', index: 0 });
    expect(progressSource(job([['PS', 1]]), undefined)).toEqual({ kind: 'none' });
    expect(progressSource(job([['Worker', 0]]), undefined)).toEqual({ kind: 'none' });
  });

  it('follows the annotation, type case-insensitive, or none', () => {
    const j = job([
      ['Worker', 3],
      ['Evaluator', 1],
    ]);
    expect(progressSource(j, 'evaluator-0')).toEqual({ kind: 'replica', type: 'Evaluator', index: 0 });
    expect(progressSource(j, 'Worker-2')).toEqual({ kind: 'replica', type: 'Worker', index: 2 });
    expect(progressSource(j, 'none')).toEqual({ kind: 'none' });
  });

  it.each(['worker', 'worker-', 'worker-01', 'worker--1', 'gpu-0', ' worker-0', 'worker-0 ', 'None', 'worker-1e3', ''])(
    'rejects %j naming the annotation',
    (value) => {
      const r = progressSource(job([['Worker', 3]]), value);
      expect(r.kind).toBe('invalid');
      expect(r.kind === 'invalid' && r.message).toContain(ANNOTATION_PROGRESS_REPLICA);
    },
  );

  it('rejects a replica the job does not have', () => {
    const r = progressSource(job([['Worker', 3]]), 'worker-3');
    expect(r.kind === 'invalid' && r.message).toContain('no Worker replica 3');
    expect(progressSource(job([['Worker', 3]]), 'chief-0')).toMatchObject({ kind: 'invalid' });
  });
});
