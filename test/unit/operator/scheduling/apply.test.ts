import { describe, expect, it } from 'vitest';
import { applyDecisions } from '../../../../src/operator/scheduling/apply.ts';
import type { Decided } from '../../../../src/operator/scheduling/decide.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions.ts';
import { JobShapes, takeSnapshot, type JobFacts } from '../../../../src/operator/scheduling/snapshot.ts';
import type { Plan } from '../../../../src/scheduler/index.ts';
import { NS, OPTIONS, RecordingRemover, T0, node, replicaPod, sources, tfjob } from './fixtures.ts';

const A = `${NS}/a`;
const B = `${NS}/b`;
const EMPTY: Plan = { admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };

/** Facts and a book as a pass has them after the snapshot stage. */
function cluster() {
  const book = new DecisionBook();
  const running = { scheduling: { queue: 'Running', enqueueTime: '2026-11-24T09:00:00Z', workers: { current: 3, min: 1, max: 4 } } };
  const pods = [
    replicaPod('b', 'ps', 0, 'n1'),
    replicaPod('b', 'worker', 0, 'n1'),
    replicaPod('b', 'worker', 1, 'n2'),
    replicaPod('b', 'worker', 2, 'n2'),
  ];
  const s = takeSnapshot(
    sources({ tfjobs: [tfjob('a'), tfjob('b', { elastic: { min: 1, max: 4 }, status: running })], pods, nodes: [node('n1'), node('n2')] }),
    book,
    new JobShapes(),
    OPTIONS,
    T0,
  );
  book.upkeep(s.upkeep);
  return { book, facts: s.facts };
}

function decided(plan: Partial<Plan>, repairs: Decided['repairs'] = []): Decided {
  return { plan: { ...EMPTY, ...plan }, repairs };
}

/** B gives up workers 2 and 1 (both on n2) so that A can run. */
const PREEMPT_TWO_OF_B: Plan['scaleIn'][number] = {
  job: B,
  forJob: A,
  remove: [
    { type: 'Worker', index: 2, node: 'n2' },
    { type: 'Worker', index: 1, node: 'n2' },
  ],
};

describe('apply stage', () => {
  it('preempts: registers the victims with the preemptor before deleting them, marked as preemption', async () => {
    const { book, facts } = cluster();
    const remover = new RecordingRemover();
    const applied = await applyDecisions(
      book,
      remover,
      facts,
      decided({
        scaleIn: [PREEMPT_TWO_OF_B],
      }),
      T0,
    );
    expect(remover.calls).toEqual([
      { pod: 'b-worker-2', removal: 'preemption', force: false },
      { pod: 'b-worker-1', removal: 'preemption', force: false },
    ]);
    expect([...book.get(A)!.victims].sort()).toEqual([`${NS}/b-worker-1`, `${NS}/b-worker-2`]);
    expect(book.get(B)).toMatchObject({ targetWorkers: 1, preemptions: 2 });
    expect(applied.outcomes).toEqual([
      { kind: 'scaledIn', job: B, forJob: A, count: 2, removed: ['b-worker-2', 'b-worker-1'], workers: 1, min: 1 },
    ]);
    expect([...applied.touched]).toEqual([B]);
  });

  it('admits: records a node per replica for the controller to create, and says how long the job waited', async () => {
    const { book, facts } = cluster();
    const applied = await applyDecisions(
      book,
      new RecordingRemover(),
      facts,
      decided({
        admit: [
          {
            job: A,
            replicas: [
              { type: 'PS', index: 0, node: 'n1' },
              { type: 'Worker', index: 0, node: 'n1' },
              { type: 'Worker', index: 1, node: 'n2' },
            ],
          },
        ],
      }),
      T0 + 5_000,
    );
    const d = book.get(A)!;
    expect(d.admitted).toBe(true);
    expect(Object.fromEntries([...d.pendingByName].map(([name, p]) => [name, p.node]))).toEqual({
      'a-ps-0': 'n1',
      'a-worker-0': 'n1',
      'a-worker-1': 'n2',
    });
    expect(d.targetWorkers).toBe(2);
    expect(applied.outcomes).toMatchObject([{ kind: 'admitted', job: A, workers: 2, waitedMs: 5_000 }]);
  });

  it('scales out an elastic job by nodes (the controller picks the indices), never past its maximum', async () => {
    const { book, facts } = cluster();
    const applied = await applyDecisions(
      book,
      new RecordingRemover(),
      facts,
      decided({ scaleOut: [{ job: B, add: [{ type: 'Worker', index: 3, node: 'n1' }] }] }),
      T0,
    );
    expect(book.get(B)).toMatchObject({ targetWorkers: 4, scaleOuts: 1, pendingWorkers: [{ node: 'n1', since: T0 }] });
    expect(applied.outcomes).toMatchObject([{ kind: 'scaledOut', job: B, workers: 4, max: 4 }]);
  });

  it('records why a job waits once, and touches it only when the reason changes', async () => {
    const { book, facts } = cluster();
    const waiting = decided({
      waiting: [{ job: A, reason: 'needs 3 cpu, 2 idle', starving: false, weight: 0.51234 }],
      weights: { [A]: 0.51234 },
    });
    const first = await applyDecisions(book, new RecordingRemover(), facts, waiting, T0);
    expect(first.touched.has(A)).toBe(true);
    expect(book.get(A)).toMatchObject({ reason: 'Waiting', message: 'needs 3 cpu, 2 idle', weight: 0.512 });
    const second = await applyDecisions(book, new RecordingRemover(), facts, waiting, T0 + 1);
    expect(second.touched.has(A)).toBe(false);
    expect(second.outcomes).toEqual([{ kind: 'waiting', job: A, reason: 'needs 3 cpu, 2 idle', starving: false }]);
  });

  it('removes pods stranded on a lost node first, at once when the node is gone', async () => {
    const { book, facts } = cluster();
    const b = facts.find((f) => f.key === B)!;
    const pod = b.live.get('b-worker-2')!;
    const withLoss: JobFacts[] = facts.map((f) => (f.key === B ? { ...f, lost: [{ pod, why: 'no longer exists', nodeGone: true }] } : f));
    const remover = new RecordingRemover();
    const applied = await applyDecisions(book, remover, withLoss, decided({}), T0);
    expect(remover.calls).toEqual([{ pod: 'b-worker-2', removal: 'node-lost', force: true }]);
    expect(applied.outcomes).toEqual([{ kind: 'nodeLost', job: B, pod: 'b-worker-2', node: 'n2', why: 'no longer exists' }]);
  });

  it('stops at a refused removal and still returns what it did before', async () => {
    const { book, facts } = cluster();
    const remover = new RecordingRemover();
    remover.failOn = 'b-worker-1';
    const applied = await applyDecisions(
      book,
      remover,
      facts,
      decided({
        scaleIn: [PREEMPT_TWO_OF_B],
        admit: [{ job: A, replicas: [{ type: 'PS', index: 0, node: 'n2' }] }],
      }),
      T0,
    );
    expect(applied.error?.message).toBe('injected failure removing b-worker-1');
    expect(remover.calls.map((c) => c.pod)).toEqual(['b-worker-2']);
    expect(book.get(A)!.admitted).toBe(false);
    expect(applied.outcomes).toEqual([]);
  });

  it('places replacements for lost replicas, and shrinks an elastic job that cannot get its workers back', async () => {
    const { book, facts } = cluster();
    book.get(B)!.targetWorkers = 4; // wants a fourth worker it does not have
    const b = facts.find((f) => f.key === B)!;
    const missing = { job: B, group: b.state.spec.workers! };
    const withHole: JobFacts[] = facts.map((f) => (f.key === B ? { ...f, missing: [missing] } : f));
    const none = await applyDecisions(book, new RecordingRemover(), withHole, decided({}), T0);
    expect(book.get(B)!.targetWorkers).toBe(3);
    expect(none.touched.has(B)).toBe(true);
    book.get(B)!.targetWorkers = 4;
    const placed = await applyDecisions(book, new RecordingRemover(), withHole, decided({}, [{ replica: missing, node: 'n1' }]), T0);
    expect(book.get(B)!.targetWorkers).toBe(4);
    expect(placed.outcomes).toEqual([{ kind: 'placed', job: B, node: 'n1' }]);
  });
});
