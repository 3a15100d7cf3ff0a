import { ANNOTATION_PLACED_NODE } from '../../../../src/api/v1/constants.ts';
import { describe, expect, it } from 'vitest';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { PENDING_TTL_MS } from '../../../../src/operator/scheduling/decisions/decision.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import { NS, OPTIONS, T0, adopt, bookWith, foreignPod, node, replicaPod, sources, tfjob, tfjobObject } from './fixtures.ts';

const running = { scheduling: { queue: 'Running', enqueueTime: '2026-11-24T09:00:00Z', workers: { current: 2, min: 2, max: 2 } } };

describe('snapshot stage', () => {
  it('turns a new job into a waiting job of the core, and rebuilds its decision without touching the book', () => {
    const book = new DecisionBook();
    const s = takeSnapshot(sources({ tfjobs: [tfjob('a')], nodes: [node('n1')] }), book, new JobShapes(), OPTIONS, T0 + 1000);
    expect(s.snapshot.jobs).toHaveLength(1);
    const job = s.snapshot.jobs[0]!;
    expect(job.phase).toBe('waiting');
    expect(job.spec.key).toBe(`${NS}/a`);
    expect(job.spec.fixed.map((g) => [g.type, g.count])).toEqual([['PS', 1]]);
    expect(job.spec.workers).toMatchObject({ min: 2, max: 2, requests: { cpu: 1000 } });
    expect(job.spec.submittedAt).toBe(T0);
    expect(s.snapshot.nodes.map((n) => n.name)).toEqual(['n1']);
    expect([...s.upkeep.restored.keys()]).toEqual([`${NS}/a`]);
    expect(book.size).toBe(0);
  });

  it('hands the core the phase the progress loop read for a job, and nothing for a job without a signal', () => {
    const progress = { [`${NS}/a`]: { phase: 'Converged' as const, since: T0 + 500 } };
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('a'), tfjob('b')], nodes: [node('n1')], progress }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0 + 1000,
    );
    const byKey = new Map(s.snapshot.jobs.map((j) => [j.spec.key, j]));
    expect(byKey.get(`${NS}/a`)!.progress).toEqual({ phase: 'Converged', since: T0 + 500 });
    expect(byKey.get(`${NS}/b`)).not.toHaveProperty('progress');
  });

  it('reads a running job from its status and pods: replicas where they run, holes as missing', () => {
    const pods = [replicaPod('a', 'worker', 0, 'n1'), replicaPod('a', 'worker', 1, 'n2')];
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('a', { status: running })], pods, nodes: [node('n1'), node('n2')] }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    const f = s.facts[0]!;
    expect(f.state.phase).toBe('running');
    expect(f.state.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? ''}`).sort()).toEqual(['Worker-0@n1', 'Worker-1@n2']);
    expect(f.missing.map((m) => m.name)).toEqual(['a-ps-0']);
    expect([...f.live.keys()].sort()).toEqual(['a-worker-0', 'a-worker-1']);
  });

  it('counts attained service: running workers × time since the last count, on top of what the status restored', () => {
    const book = new DecisionBook();
    const status = { scheduling: { ...running.scheduling, attainedWorkerSeconds: 600 } };
    const pods = [
      replicaPod('a', 'ps', 0, 'n1'),
      replicaPod('a', 'worker', 0, 'n1'),
      replicaPod('a', 'worker', 1, 'n1', { phase: 'Pending' }),
      replicaPod('a', 'worker', 2, 'n1', { deleting: true }),
    ];
    const src = sources({ tfjobs: [tfjob('a', { workers: 3, status })], pods, nodes: [node('n1')] });
    // First sight: the restored 600 s, and nothing added (no earlier count to measure from).
    const first = takeSnapshot(src, book, new JobShapes(), OPTIONS, T0);
    expect(first.facts[0]!.state.attainedWorkerSeconds).toBe(600);
    book.upkeep(first.upkeep);
    // 30 s later: one worker ran (the pending one and the terminating one do not count; nor the PS).
    const later = takeSnapshot(src, book, new JobShapes(), OPTIONS, T0 + 30_000);
    expect(later.facts[0]!.state.attainedWorkerSeconds).toBe(630);
    book.upkeep(later.upkeep);
    expect(book.get(`${NS}/a`)).toMatchObject({ attainedWorkerSeconds: 630, attainedAt: T0 + 30_000 });
  });

  it('a waiting job attains nothing', () => {
    const book = new DecisionBook();
    const src = sources({ tfjobs: [tfjob('a')], nodes: [node('n1')] });
    book.upkeep(takeSnapshot(src, book, new JobShapes(), OPTIONS, T0).upkeep);
    expect(takeSnapshot(src, book, new JobShapes(), OPTIONS, T0 + 60_000).facts[0]!.state.attainedWorkerSeconds).toBe(0);
  });

  it('counts other workloads and terminating pods as used capacity, but not live replicas or preempted pods on their way out', () => {
    const pods = [
      replicaPod('a', 'ps', 0, 'n1'),
      replicaPod('a', 'worker', 0, 'n1'),
      replicaPod('a', 'worker', 1, 'n1', { deleting: true }),
      replicaPod('a', 'worker', 2, 'n1', { deleting: true, removal: 'preemption' }),
    ];
    const s = takeSnapshot(
      sources({
        tfjobs: [tfjob('a', { workers: 3, status: running })],
        pods,
        otherPods: [foreignPod('web', 'n1', '2')],
        nodes: [node('n1')],
      }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    expect(s.snapshot.otherPods.map((p) => p.key).sort()).toEqual(['other/web', `${NS}/a-worker-1`]);
  });

  it('names placements that expired or materialised, and keeps the live ones as assumed replicas', () => {
    const job = tfjob('a', { status: running });
    const { book, d } = bookWith(`${NS}/a`, (d) => {
      d.admitted = true;
      d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
      d.pendingByName.set('a-worker-0', { node: 'n1', since: T0 - PENDING_TTL_MS });
      d.pendingByName.set('a-worker-1', { node: 'n2', since: T0 });
    });
    const pods = [replicaPod('a', 'worker', 1, 'n2')];
    const s = takeSnapshot(sources({ tfjobs: [job], pods, nodes: [node('n1'), node('n2')] }), book, new JobShapes(), OPTIONS, T0 + 1);
    expect([...(s.upkeep.settled.get(`${NS}/a`)?.names ?? [])].sort()).toEqual(['a-worker-0', 'a-worker-1']);
    const f = s.facts[0]!;
    expect(f.state.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? ''}`).sort()).toEqual(['PS-0@n1', 'Worker-1@n2']);
    // The assumed one is marked pending (the core never removes it: its pod may be being created);
    // the pod that exists is not.
    expect(f.state.replicas.map((r) => `${r.type}-${r.index}:${r.pending === true}`).sort()).toEqual(['PS-0:true', 'Worker-1:false']);
    expect(f.missing.map((m) => m.name)).toEqual(['a-worker-0']);
    // The book itself is unchanged until the pass applies the upkeep.
    expect(d.pendingByName.size).toBe(3);
    book.upkeep(s.upkeep);
    expect([...d.pendingByName.keys()]).toEqual(['a-ps-0']);
  });

  it('counts a pod kube-scheduler has yet to bind on the node the operator chose for it', () => {
    const unbound = replicaPod('a', 'worker', 1, undefined);
    unbound.metadata = { ...unbound.metadata, annotations: { [ANNOTATION_PLACED_NODE]: 'n2' } };
    const pods = [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1'), unbound];
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('a', { status: running })], pods, nodes: [node('n1'), node('n2')] }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    expect(s.facts[0]!.state.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? ''}`).sort()).toEqual([
      'PS-0@n1',
      'Worker-0@n1',
      'Worker-1@n2',
    ]);
  });

  it('drops placements on nodes that no longer take the pod, so they are placed again', () => {
    const { book } = bookWith(`${NS}/a`, (d) => {
      d.admitted = true;
      d.pendingByName.set('a-ps-0', { node: 'ok', since: T0 });
      d.pendingByName.set('a-worker-0', { node: 'cordoned', since: T0 });
      d.pendingByName.set('a-worker-1', { node: 'tainted', since: T0 });
      d.pendingWorkers = [
        { node: 'notready', since: T0 },
        { node: 'gone', since: T0 },
        { node: 'ok', since: T0 },
      ];
    });
    const cordoned = { ...node('cordoned'), spec: { unschedulable: true } };
    const tainted = { ...node('tainted'), spec: { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] } };
    const nodes = [node('ok'), cordoned, tainted, node('notready', '4', { ready: false })];
    const s = takeSnapshot(sources({ tfjobs: [tfjob('a', { status: running })], nodes }), book, new JobShapes(), OPTIONS, T0 + 1);
    expect([...(s.upkeep.settled.get(`${NS}/a`)?.names ?? [])].sort()).toEqual(['a-worker-0', 'a-worker-1']);
    expect(s.upkeep.settled.get(`${NS}/a`)?.workersAlive).toEqual([{ node: 'ok', since: T0 }]);
    expect(s.facts[0]!.missing.map((m) => m.name)).toEqual(['a-worker-0', 'a-worker-1']);
  });

  it('keeps every placement of a job whose pod creates are in flight, even on a node cordoned or expired since (not on a node gone)', () => {
    const { book } = bookWith(`${NS}/a`, (d) => {
      d.admitted = true;
      d.pendingByName.set('a-ps-0', { node: 'ok', since: T0 - PENDING_TTL_MS });
      d.pendingWorkers = [
        { node: 'gone', since: T0 },
        { node: 'cordoned', since: T0 },
      ];
    });
    const cordoned = { ...node('cordoned'), spec: { unschedulable: true } };
    const nodes = [node('ok'), cordoned];
    const take = (creating: readonly string[]) =>
      takeSnapshot(sources({ tfjobs: [tfjob('a', { status: running })], nodes, creating }), book, new JobShapes(), OPTIONS, T0 + 1);
    const inFlight = take([`${NS}/a`]);
    expect(inFlight.upkeep.settled.get(`${NS}/a`)?.names ?? []).toEqual([]);
    expect(inFlight.upkeep.settled.get(`${NS}/a`)?.workersAlive).toEqual([{ node: 'cordoned', since: T0 }]);
    expect(inFlight.facts[0]!.state.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? ''}`).sort()).toEqual([
      'PS-0@ok',
      'Worker-0@cordoned',
    ]);
    // Once the creates are seen or failed, the usual rules apply again.
    const after = take([]);
    expect([...(after.upkeep.settled.get(`${NS}/a`)?.names ?? [])]).toEqual(['a-ps-0']);
    expect(after.upkeep.settled.get(`${NS}/a`)?.workersAlive).toEqual([]);
  });

  it('leaves suspended, finished and invalid jobs out of the core input', () => {
    const finished = tfjob('done', { status: { conditions: [{ type: 'Succeeded', status: 'True' }] } });
    const invalid = toTFJobEntry({ ...tfjobObject('bad'), spec: { tfReplicaSpecs: { Worker: { replicas: -3 } } } });
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('paused', { suspend: true }), finished, invalid, tfjob('ok')], nodes: [node('n1')] }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    expect(s.snapshot.jobs.map((j) => j.spec.key)).toEqual([`${NS}/ok`]);
    expect(s.upkeep.suspended).toEqual([`${NS}/paused`]);
  });

  it('suspends a job only once the pod creates it has in flight are seen: its placements keep their room until then', () => {
    const { book } = bookWith(`${NS}/paused`, (d) => {
      d.admitted = true;
      d.pendingByName.set('paused-ps-0', { node: 'n1', since: T0 });
    });
    const take = (creating: readonly string[]) =>
      takeSnapshot(
        sources({ tfjobs: [tfjob('paused', { suspend: true, status: running })], nodes: [node('n1')], creating }),
        book,
        new JobShapes(),
        OPTIONS,
        T0 + 1,
      );
    const inFlight = take([`${NS}/paused`]);
    expect(inFlight.upkeep.suspended).toEqual([]);
    expect(inFlight.snapshot.jobs[0]!.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? ''}`)).toEqual(['PS-0@n1']);
    expect(take([]).upkeep.suspended).toEqual([`${NS}/paused`]);
  });

  it('keeps the room of placements a finished or deleted job had pods created from until those creates are seen', () => {
    // The reconcile that creates a job's last placements can also find its worker-0 done and mark it
    // Succeeded: its pods are then created, and soon cleaned up, but the status update may reach the
    // cache before the pods do. A pass in between must still count their room.
    const succeeded = { conditions: [{ type: 'Succeeded', status: 'True' }] };
    const book = new DecisionBook();
    for (const name of ['done', 'gone'])
      adopt(book, `${NS}/${name}`, (d) => {
        d.admitted = true;
        d.pendingByName.set(`${name}-ps-0`, { node: 'n1', since: T0 });
        d.pendingWorkers = [{ node: 'n2', since: T0 }];
      });
    const gone = toTFJobEntry({
      ...tfjobObject('gone', { status: running }),
      metadata: { ...tfjobObject('gone').metadata, deletionTimestamp: new Date(T0) },
    });
    const take = (creating: readonly string[], pods: ReturnType<typeof replicaPod>[] = []) =>
      takeSnapshot(
        sources({ tfjobs: [tfjob('done', { status: succeeded }), gone], pods, nodes: [node('n1'), node('n2')], creating }),
        book,
        new JobShapes(),
        OPTIONS,
        T0 + 1,
      );
    const inFlight = take([`${NS}/done`, `${NS}/gone`]);
    expect(inFlight.snapshot.jobs).toEqual([]);
    expect(inFlight.snapshot.otherPods.map((p) => `${p.key}@${p.node}:${p.requests.cpu}`).sort()).toEqual([
      `${NS}/done-ps-0@n1:1000`,
      `${NS}/done-worker(creating)@n2:1000`,
      `${NS}/gone-ps-0@n1:1000`,
      `${NS}/gone-worker(creating)@n2:1000`,
    ]);
    // A placement whose pod is cached is counted once, as that pod.
    const seen = take([`${NS}/done`], [replicaPod('done', 'ps', 0, 'n1')]);
    expect(seen.snapshot.otherPods.map((p) => `${p.key}@${p.node}`).sort()).toEqual([
      `${NS}/done-ps-0@n1`,
      `${NS}/done-worker(creating)@n2`,
    ]);
    // Once the creates are seen or failed, nothing is held for them.
    expect(take([]).snapshot.otherPods).toEqual([]);
  });

  it('separates pods on lost nodes from live ones, for admitted jobs only', () => {
    const pods = [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'gone'), replicaPod('a', 'worker', 1, 'n1')];
    const lost = { gone: { why: 'no longer exists', nodeGone: true } };
    const s = takeSnapshot(
      sources({ tfjobs: [tfjob('a', { status: running })], pods, nodes: [node('n1')], lost }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    const f = s.facts[0]!;
    expect(f.lost.map((l) => [l.pod.metadata?.name, l.nodeGone])).toEqual([['a-worker-0', true]]);
    expect([...f.live.keys()].sort()).toEqual(['a-ps-0', 'a-worker-1']);
    // Its pod still exists until removed: only then is the replica missing and placed again.
    expect(f.missing).toEqual([]);
    // A job the scheduler holds as waiting (its pods are on their way out) has nothing to replace.
    const { book } = bookWith(`${NS}/a`, (d) => {
      d.admitted = false;
    });
    const waiting = takeSnapshot(sources({ tfjobs: [tfjob('a')], pods, nodes: [node('n1')], lost }), book, new JobShapes(), OPTIONS, T0);
    expect(waiting.facts[0]!.lost).toEqual([]);
  });

  it('takes priority only from PriorityClasses that exist, and places only on managed nodes', () => {
    const withClassOf = (name: string, priorityClass: string) => {
      const job = tfjobObject(name);
      return toTFJobEntry({ ...job, spec: { ...(job.spec as object), runPolicy: { schedulingPolicy: { priorityClass } } } });
    };
    const withClass = withClassOf('a', 'high');
    const other = withClassOf('b', 'missing');
    const s = takeSnapshot(
      sources({
        tfjobs: [withClass, other],
        nodes: [node('n1', '4', { labels: { pool: 'ml' } }), node('n2')],
        priorityClasses: { high: 1000 },
      }),
      new DecisionBook(),
      new JobShapes(),
      { ...OPTIONS, managedNode: (labels) => labels?.pool === 'ml' },
      T0,
    );
    expect(s.snapshot.jobs.map((j) => [j.spec.key, j.spec.priority])).toEqual([
      [`${NS}/a`, 1000],
      [`${NS}/b`, 0],
    ]);
    expect(s.snapshot.nodes.map((n) => n.name)).toEqual(['n1']);
  });

  it('computes a job shape once per cached entry', () => {
    const shapes = new JobShapes();
    const entry = tfjob('a', { rv: '7' });
    const first = shapes.get(entry, {});
    expect(first?.groups.map((g) => [g.type, g.replicas])).toEqual([
      ['PS', 1],
      ['Worker', 2],
    ]);
    expect(shapes.get(entry, {})).toBe(first);
    expect(shapes.get(tfjob('a', { rv: '8' }), {})).not.toBe(first);
    expect(shapes.get(toTFJobEntry({ metadata: { name: 'x' }, spec: 'nonsense' }), {})).toBeUndefined();
  });

  it('bounds an elastic job by the operator-wide worker limit, never below its minimum', () => {
    const huge = tfjob('huge', { workers: 2 ** 31 - 1, elastic: { min: 2, max: 2 ** 31 - 1 } });
    expect(new JobShapes().get(huge, { workerLimit: 64 })?.view.elastic).toEqual({ min: 2, max: 64 });
    expect(new JobShapes().get(huge, { workerLimit: 1 })?.view.elastic).toEqual({ min: 2, max: 2 });
    // MAX_ELASTIC_WORKERS bounds it without a limit, or with a larger one: TF_CONFIG lists every slot.
    expect(new JobShapes().get(huge, {})?.view.elastic).toEqual({ min: 2, max: 512 });
    expect(new JobShapes().get(huge, { workerLimit: 4096 })?.view.elastic).toEqual({ min: 2, max: 512 });
    // Fixed-size jobs are not bounded: their size is what they need to run at all.
    expect(new JobShapes().get(tfjob('fixed', { workers: 2000 }), { workerLimit: 1024 })?.view.replicas.Worker).toBe(2000);
  });

  describe('pods kube-scheduler refuses on the chosen node', () => {
    /** b-worker-1, pinned to n2 and refused there since `since` with `message`. */
    const refusedPod = (since: number, message: string) => {
      const p = replicaPod('a', 'worker', 1, undefined, { phase: 'Pending' });
      return {
        ...p,
        metadata: { ...p.metadata, annotations: { [ANNOTATION_PLACED_NODE]: 'n2' } },
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastTransitionTime: new Date(since) }],
        },
      };
    };
    const antiAffinity =
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod anti-affinity rules.";
    const take = (pod: ReturnType<typeof refusedPod>, book = new DecisionBook(), now = T0) =>
      takeSnapshot(
        sources({
          tfjobs: [tfjob('a', { status: running })],
          pods: [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1'), pod],
          nodes: [node('n1'), node('n2'), node('n3')],
        }),
        book,
        new JobShapes(),
        OPTIONS,
        now,
      );

    it('hands a pod refused for a node-specific reason longer than the threshold to removal, and keeps it live before', () => {
      const long = take(refusedPod(T0 - 61_000, antiAffinity)).facts[0]!;
      expect(long.refused.map((r) => [r.pod.metadata?.name, r.refusal.node, r.refusal.message])).toEqual([
        ['a-worker-1', 'n2', antiAffinity],
      ]);
      expect([...long.live.keys()].sort()).toEqual(['a-ps-0', 'a-worker-0']);
      const recent = take(refusedPod(T0 - 10_000, antiAffinity)).facts[0]!;
      expect(recent.refused).toEqual([]);
      expect([...recent.live.keys()].sort()).toEqual(['a-ps-0', 'a-worker-0', 'a-worker-1']);
    });

    it('leaves a pod whose refusal holds on every node (a missing or unbound claim) where it is, and never moves any with the option off', () => {
      for (const message of [
        '0/2 nodes are available: persistentvolumeclaim "data" not found.',
        '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
      ])
        expect(take(refusedPod(T0 - 600_000, message)).facts[0]!.refused).toEqual([]);
      const off = takeSnapshot(
        sources({ tfjobs: [tfjob('a', { status: running })], pods: [refusedPod(T0 - 600_000, antiAffinity)], nodes: [node('n2')] }),
        new DecisionBook(),
        new JobShapes(),
        { ...OPTIONS, replaceRefusedAfterMs: 0 },
        T0,
      );
      expect(off.facts[0]!.refused).toEqual([]);
    });

    it('leaves a node the job was refused on out of its placements until the avoidance ends', () => {
      const { book } = bookWith(`${NS}/a`, (d) => {
        d.admitted = true;
      });
      book.avoid(`${NS}/a`, 'n2', T0 + 600_000);
      const terms = (now: number) =>
        take(refusedPod(T0, antiAffinity), book, now).facts[0]!.state.spec.workers?.constraints.requiredNodeAffinity;
      expect(terms(T0)).toEqual([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] }]);
      expect(terms(T0 + 600_001)).toBeUndefined();
    });
  });
});
