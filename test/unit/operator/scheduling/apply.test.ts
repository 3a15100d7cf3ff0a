import { describe, expect, it } from 'vitest';
import { applyDecisions } from '../../../../src/operator/scheduling/pass/apply.ts';
import type { Decided } from '../../../../src/operator/scheduling/pass/decide.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot, type JobFacts } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import type { Plan } from '../../../../src/scheduler/index.ts';
import { NS, OPTIONS, RecordingRemover, T0, node, replicaPod, sources, tfjob } from './fixtures.ts';

const A = `${NS}/a`;
const B = `${NS}/b`;
const OPTS = { starveLimitMs: 60_000, timeScale: 1, avoidRefusedNodeMs: 600_000 };
const NO_UPKEEP = { restored: new Map(), suspended: [], settled: new Map(), attained: new Map(), at: T0 };
const EMPTY: Plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };

/** Facts and a book as a pass has them after the snapshot stage. */
function cluster(elastic = { min: 1, max: 4 }) {
  const book = new DecisionBook();
  const running = { scheduling: { queue: 'Running', enqueueTime: '2026-11-24T09:00:00Z', workers: { current: 3, ...elastic } } };
  const pods = [
    replicaPod('b', 'ps', 0, 'n1'),
    replicaPod('b', 'worker', 0, 'n1'),
    replicaPod('b', 'worker', 1, 'n2'),
    replicaPod('b', 'worker', 2, 'n2'),
  ];
  const s = takeSnapshot(
    sources({ tfjobs: [tfjob('a'), tfjob('b', { elastic, status: running })], pods, nodes: [node('n1'), node('n2')] }),
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

/** B moves worker 2 off n2 (next to its PS) for A; its replacement is worker 3 on n1. */
const MOVE_B_WORKER_2: Plan['scaleIn'][number] = { job: B, forJob: A, remove: [{ type: 'Worker', index: 2, node: 'n2' }], relocated: true };
/** B gets worker 3 on n1. */
const B_WORKER_3_ON_N1: Plan['scaleOut'][number] = { job: B, add: [{ type: 'Worker', index: 3, node: 'n1' }] };

describe('apply stage', () => {
  it('suspends: every pod of the victim is marked and deleted for the preemptor, and the job is back in the queue', async () => {
    const { book, facts } = cluster();
    book.upkeep({ ...NO_UPKEEP, attained: new Map([[B, 3 * 3600]]) });
    const remover = new RecordingRemover();
    const applied = await applyDecisions(book, remover, facts, decided({ suspend: [{ job: B, forJob: A }] }), T0, OPTS);
    expect(remover.calls.map((c) => [c.pod, c.removal]).sort()).toEqual([
      ['b-ps-0', 'preemption'],
      ['b-worker-0', 'preemption'],
      ['b-worker-1', 'preemption'],
      ['b-worker-2', 'preemption'],
    ]);
    expect(book.get(A)!.victims.size).toBe(4);
    expect(book.get(B)).toMatchObject({ admitted: false, targetWorkers: 1, preemptions: 3, reason: 'Suspended', pendingWorkers: [] });
    expect(applied.outcomes).toHaveLength(1);
    expect(applied.outcomes[0]).toMatchObject({ job: B, reason: 'Suspended', workers: 3 });
    expect(applied.outcomes[0]!.message).toContain(`Suspended to admit ${A}`);
    expect(applied.outcomes[0]!.message).toContain('3.0 worker-hours');
    expect([...applied.touched]).toEqual([B]);
  });

  it('reports attained service in steps: not for every minute, each time it doubled, by a worker-hour at least', async () => {
    const { book, facts } = cluster();
    const touched = async (attained: number) => {
      book.upkeep({ ...NO_UPKEEP, attained: new Map([[B, attained]]) });
      return [...(await applyDecisions(book, new RecordingRemover(), facts, decided({}), T0, OPTS)).touched];
    };
    // From nothing, the first report waits for a whole worker-hour.
    expect(await touched(3000)).toEqual([]);
    expect(await touched(3600)).toEqual([B]);
    expect(book.get(B)!.attainedReported).toBe(3600);
    expect(await touched(3600 + 3000)).toEqual([]); // grew by less than it had
    expect(await touched(3600 + 3600.5)).toEqual([B]);
    expect(book.get(B)!.attainedReported).toBe(7200);
  });

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
      OPTS,
    );
    expect(remover.calls).toEqual([
      { pod: 'b-worker-2', removal: 'preemption', force: false },
      { pod: 'b-worker-1', removal: 'preemption', force: false },
    ]);
    expect([...book.get(A)!.victims.keys()].sort()).toEqual([`${NS}/b-worker-1`, `${NS}/b-worker-2`]);
    expect(book.get(B)).toMatchObject({ targetWorkers: 1, preemptions: 2 });
    expect(applied.outcomes).toEqual([
      {
        job: B,
        reason: 'Preempted',
        message: `Scaled in by 2 worker(s) (b-worker-2, b-worker-1) to admit ${A} (weight ? vs ?); now 1 worker(s), minimum 1`,
        workers: 2,
      },
    ]);
    // The victim's status tells what was done to it.
    expect(book.get(B)).toMatchObject({ reason: 'Preempted', message: applied.outcomes[0]?.message });
    expect([...applied.touched]).toEqual([B]);
  });

  it('preempts: a victim already replaced by a pod of the same name does not hold the preemptor back', async () => {
    const { book, facts } = cluster();
    const remover = new RecordingRemover();
    remover.gone.add('b-worker-2');
    await applyDecisions(book, remover, facts, decided({ scaleIn: [PREEMPT_TWO_OF_B] }), T0, OPTS);
    expect(remover.calls.map((c) => c.pod)).toEqual(['b-worker-1']);
    expect([...book.get(A)!.victims.keys()]).toEqual([`${NS}/b-worker-1`]);
    expect(book.isPreempted(`${NS}/b-worker-1`, 'uid-b-worker-1')).toBe(true);
    expect(book.isPreempted(`${NS}/b-worker-2`, 'uid-b-worker-2')).toBe(false);
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
      OPTS,
    );
    const d = book.get(A)!;
    expect(d.admitted).toBe(true);
    expect(Object.fromEntries([...d.pendingByName].map(([name, p]) => [name, p.node]))).toEqual({
      'a-ps-0': 'n1',
      'a-worker-0': 'n1',
      'a-worker-1': 'n2',
    });
    expect(d.targetWorkers).toBe(2);
    expect(applied.outcomes).toEqual([
      {
        job: A,
        reason: 'Admitted',
        message: 'Admitted with 2 worker(s) (weight ?) on n1 (ps-0, worker-0), n2 (worker-1)',
        waitedMs: 5_000,
      },
    ]);
    expect(d).toMatchObject({ reason: 'Admitted', starving: false });
  });

  it("relocates: a converged job at its minimum moves a worker next to its PS and keeps its size; the room is the preemptor's", async () => {
    const { book, facts } = cluster({ min: 3, max: 4 });
    const remover = new RecordingRemover();
    const applied = await applyDecisions(
      book,
      remover,
      facts,
      decided({
        scaleIn: [MOVE_B_WORKER_2],
        scaleOut: [B_WORKER_3_ON_N1],
      }),
      T0,
      OPTS,
    );
    // The preemptor waits for the moved worker's pod to be gone, as for any preemption.
    expect(remover.calls).toEqual([{ pod: 'b-worker-2', removal: 'preemption', force: false }]);
    expect([...book.get(A)!.victims.keys()]).toEqual([`${NS}/b-worker-2`]);
    // The size stays: not floored at the minimum in between (max(3, 2) + 1 would be 4).
    expect(book.get(B)).toMatchObject({ targetWorkers: 3 });
    expect(applied.outcomes).toEqual([
      {
        job: B,
        reason: 'ScaledIn',
        message: `Moving 1 worker(s) (b-worker-2) onto this job's PS node(s) so that ${A} fits in the room they leave (this job has converged; its worker count stays)`,
        workers: 1,
      },
      { job: B, reason: 'ScaledOut', message: 'Moved 1 worker(s) next to its PS on n1 (worker-3); now 3 worker(s)', workers: 1 },
    ]);
  });

  it('relocates: a stage that stops before the replacements leaves the job at its size, for the next pass to repair', async () => {
    const { book, facts } = cluster({ min: 3, max: 4 });
    const remover = new RecordingRemover();
    remover.failOn = 'b-worker-1';
    const applied = await applyDecisions(
      book,
      remover,
      facts,
      decided({
        scaleIn: [MOVE_B_WORKER_2, { job: B, forJob: A, remove: [{ type: 'Worker', index: 1, node: 'n2' }] }],
        scaleOut: [B_WORKER_3_ON_N1],
      }),
      T0,
      OPTS,
    );
    expect(applied.error).toBeDefined();
    expect(book.get(B)).toMatchObject({ targetWorkers: 3 });
  });

  it('scales out an elastic job by nodes (the controller picks the indices), never past its maximum', async () => {
    const { book, facts } = cluster();
    const applied = await applyDecisions(book, new RecordingRemover(), facts, decided({ scaleOut: [B_WORKER_3_ON_N1] }), T0, OPTS);
    expect(book.get(B)).toMatchObject({ targetWorkers: 4, scaleOuts: 1, pendingWorkers: [{ node: 'n1', since: T0 }] });
    expect(applied.outcomes).toEqual([
      {
        job: B,
        reason: 'ScaledOut',
        message: 'Scaled out by 1 worker(s) into idle capacity on n1 (worker-3); now 4 worker(s), maximum 4',
        workers: 1,
      },
    ]);
  });

  it("names the donor in the receiver's ScaledOut event when the worker came from a job scaled in for it", async () => {
    const { book, facts } = cluster();
    const gave: Plan['scaleIn'][number] = { job: A, forJob: B, remove: [{ type: 'Worker', index: 0, node: 'n1' }], toMeetTarget: true };
    const applied = await applyDecisions(
      book,
      new RecordingRemover(),
      facts,
      decided({ scaleIn: [gave], scaleOut: [B_WORKER_3_ON_N1] }),
      T0,
      OPTS,
    );
    expect(applied.outcomes.find((o) => o.job === B)).toEqual({
      job: B,
      reason: 'ScaledOut',
      message: `Scaled out by 1 worker(s) into room made by scaling in ${A} (1 worker(s)) on n1 (worker-3); now 4 worker(s), maximum 4`,
      workers: 1,
    });
  });

  it('records why a job waits once, and touches it only when the reason changes', async () => {
    const { book, facts } = cluster();
    const waiting = decided({
      waiting: [{ job: A, reason: 'needs 3 cpu, 2 idle', starving: false, weight: 0.51234 }],
      weights: { [A]: 0.51234 },
    });
    const first = await applyDecisions(book, new RecordingRemover(), facts, waiting, T0, OPTS);
    expect(first.touched.has(A)).toBe(true);
    expect(book.get(A)).toMatchObject({ reason: 'Waiting', message: 'needs 3 cpu, 2 idle', weight: 0.512 });
    const second = await applyDecisions(book, new RecordingRemover(), facts, waiting, T0 + 1, OPTS);
    expect(second.touched.has(A)).toBe(false);
    expect(first.outcomes).toEqual([{ job: A, reason: 'Waiting', message: 'needs 3 cpu, 2 idle', news: true }]);
    expect(second.outcomes).toEqual([{ job: A, reason: 'Waiting', message: 'needs 3 cpu, 2 idle', news: false }]);
  });

  it('removes pods stranded on a lost node first, at once when the node is gone', async () => {
    const { book, facts } = cluster();
    const b = facts.find((f) => f.key === B)!;
    const pod = b.live.get('b-worker-2')!;
    const withLoss: JobFacts[] = facts.map((f) => (f.key === B ? { ...f, lost: [{ pod, why: 'no longer exists', nodeGone: true }] } : f));
    const remover = new RecordingRemover();
    const applied = await applyDecisions(book, remover, withLoss, decided({}), T0, OPTS);
    expect(remover.calls).toEqual([{ pod: 'b-worker-2', removal: 'node-lost', force: true }]);
    expect(applied.outcomes).toEqual([
      { job: B, reason: 'NodeLost', message: 'Removed b-worker-2: its node n2 no longer exists; it will be placed again' },
    ]);
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
      OPTS,
    );
    expect(applied.error?.message).toBe('injected failure removing b-worker-1');
    expect(remover.calls.map((c) => c.pod)).toEqual(['b-worker-2']);
    expect(book.get(A)!.admitted).toBe(false);
    expect(applied.outcomes).toEqual([]);
  });

  it('places replacements for lost replicas, and shrinks an elastic job that cannot get its workers back', async () => {
    const { book, facts } = cluster();
    // Wants a fourth worker it does not have.
    const wantsFour = () => {
      book.scaleOut(B, { nodes: [], added: 1, moved: 0, maxWorkers: 4, now: T0 });
    };
    wantsFour();
    const b = facts.find((f) => f.key === B)!;
    const missing = { job: B, group: b.state.spec.workers! };
    const withHole: JobFacts[] = facts.map((f) => (f.key === B ? { ...f, missing: [missing] } : f));
    const none = await applyDecisions(book, new RecordingRemover(), withHole, decided({}), T0, OPTS);
    expect(book.get(B)!.targetWorkers).toBe(3);
    expect(none.touched.has(B)).toBe(true);
    wantsFour();
    const placed = await applyDecisions(book, new RecordingRemover(), withHole, decided({}, [{ replica: missing, node: 'n1' }]), T0, OPTS);
    expect(book.get(B)!.targetWorkers).toBe(4);
    expect(placed.outcomes).toEqual([
      { job: B, reason: 'Placed', message: 'Placed a replacement worker on n1 (replacing a lost replica)' },
    ]);
  });

  it('a hole filled by a scale-out in the same plan does not shrink the job (a failed worker being re-created)', async () => {
    // B at its maximum of 3; worker 2 failed (not a replica any more): a hole, and the plan scales B
    // out by one into the room it left. B must keep its target of 3, or the new worker is never created.
    const { book, facts } = cluster({ min: 1, max: 3 });
    const b = facts.find((f) => f.key === B)!;
    const missing = { job: B, group: b.state.spec.workers! };
    const state = { ...b.state, replicas: b.state.replicas.filter((r) => !(r.type === 'Worker' && r.index === 2)) };
    const withHole: JobFacts[] = facts.map((f) => (f.key === B ? { ...f, state, missing: [missing] } : f));
    const plan = decided({ scaleOut: [{ job: B, add: [{ type: 'Worker', index: 2, node: 'n2' }] }] });
    await applyDecisions(book, new RecordingRemover(), withHole, plan, T0, OPTS);
    expect(book.get(B)!.targetWorkers).toBe(3);
    expect(book.get(B)!.pendingWorkers.map((p) => p.node)).toEqual(['n2']);
  });

  it('counts workers taken beyond the minimum at admission as a scale-out, and says a starving job was starving', async () => {
    const book = new DecisionBook();
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('e', { elastic: { min: 1, max: 4 } })], nodes: [node('n1')] }),
      book,
      new JobShapes(),
      OPTIONS,
      T0,
    );
    book.upkeep(s.upkeep);
    const E = `${NS}/e`;
    const replicas = [
      { type: 'PS', index: 0, node: 'n1' },
      { type: 'Worker', index: 0, node: 'n1' },
      { type: 'Worker', index: 1, node: 'n1' },
      { type: 'Worker', index: 2, node: 'n1' },
    ];
    const admit = decided({ admit: [{ job: E, replicas }], weights: { [E]: 1 } });
    const applied = await applyDecisions(book, new RecordingRemover(), s.facts, admit, T0 + 90_000, OPTS);
    expect(applied.outcomes.map((o) => [o.reason, o.message])).toEqual([
      ['Admitted', 'Admitted with 3 worker(s) (weight 1.00, starving after waiting 90s) on n1 (ps-0, worker-0, worker-1, worker-2)'],
      ['ScaledOut', 'Scaled out by 2 worker(s) into idle capacity at admission on n1 (worker-1, worker-2); now 3 worker(s), maximum 4'],
    ]);
    expect(book.get(E)).toMatchObject({ reason: 'Admitted', starving: true, scaleOuts: 2, targetWorkers: 3 });
  });

  it('names the PriorityClasses when they, not the weights, decided a preemption', async () => {
    const { book, facts } = cluster();
    const withClasses = facts.map((f) => {
      const runPolicy = { schedulingPolicy: { priorityClass: f.key === A ? 'urgent' : 'batch' } };
      const raw = { ...f.raw, spec: { ...f.raw.spec, tfReplicaSpecs: f.raw.spec?.tfReplicaSpecs ?? {}, runPolicy } };
      return { ...f, raw, state: { ...f.state, spec: { ...f.state.spec, priority: f.key === A ? 1000 : 10 } } };
    });
    const preempt = decided({ scaleIn: [PREEMPT_TWO_OF_B], weights: { [A]: 0.2, [B]: 0.9 } });
    const applied = await applyDecisions(book, new RecordingRemover(), withClasses, preempt, T0, OPTS);
    expect(applied.outcomes[0]?.message).toBe(
      `Scaled in by 2 worker(s) (b-worker-2, b-worker-1) to admit ${A} (priority class urgent (1000) above priority class batch (10)); now 1 worker(s), minimum 1`,
    );
  });

  it('removes a pod kube-scheduler refused, avoids its node for the job, and says so in a warning', async () => {
    const { book, facts } = cluster();
    const b = facts.find((f) => f.key === B)!;
    const pod = b.live.get('b-worker-2')!;
    const refusal = { node: 'n2', message: "1 node(s) didn't match pod anti-affinity rules", since: T0 - 90_000 };
    const withRefusal = facts.map((f) => (f.key === B ? { ...f, refused: [{ pod, refusal }] } : f));
    const remover = new RecordingRemover();
    const applied = await applyDecisions(book, remover, withRefusal, decided({}), T0, OPTS);
    expect(remover.calls.map((c) => [c.pod, c.removal])).toEqual([['b-worker-2', 'refused-by-scheduler']]);
    expect([...book.get(B)!.avoidNodes]).toEqual([['n2', T0 + 600_000]]);
    expect(applied.touched.has(B)).toBe(true);
    expect(applied.outcomes.map((o) => [o.reason, o.message])).toEqual([
      [
        'RefusedByScheduler',
        "Removed b-worker-2: kube-scheduler refused it on n2 for 90s (1 node(s) didn't match pod anti-affinity rules); it will be placed again on another node (n2 is avoided for this job for 600s)",
      ],
    ]);
  });
});
