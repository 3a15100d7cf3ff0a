// SpeCon's step in the operator, against small fakes of its own interfaces (steering, pod remover,
// status writer, events): what it deletes, where it steers the replacement, and what it says once the
// replacement is bound: WorkerMigrated on the target, MigrationTargetLost elsewhere or nowhere.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { toTFJobEntry, type ParsedTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { MigrationStatus } from '../../../../src/api/v1/schema.ts';
import { MigrationStep, REMOVAL_MIGRATION, type MigrationSteeringPort } from '../../../../src/operator/migration/step.ts';
import type { ClusterView } from '../../../../src/operator/scheduling/pass/decide.ts';
import type { Removal } from '../../../../src/operator/scheduling/pod-remover.ts';
import type { JobVerdict } from '../../../../src/operator/vertical/status.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';
import type { NodeInfo } from '../../../../src/scheduler/types.ts';

const T0 = Date.UTC(2026, 10, 28, 12);
const NS = 'ns';
const SETTLE_MS = 60_000;

function job(
  name: string,
  workers: number,
  limit: string,
  elastic: boolean,
  nodeSelector?: Record<string, string>,
  status?: { migration: MigrationStatus },
): ParsedTFJobEntry {
  const container = {
    name: 'tensorflow',
    image: 'tf',
    resources: { requests: { cpu: limit === '4' ? '200m' : '500m' }, limits: { cpu: limit } },
  };
  const entry = toTFJobEntry({
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name, namespace: NS, uid: `${name}-uid` },
    spec: {
      ...(elastic ? { elasticPolicy: { minReplicas: workers, maxReplicas: workers } } : {}),
      tfReplicaSpecs: {
        Worker: { replicas: workers, template: { spec: { containers: [container], ...(nodeSelector ? { nodeSelector } : {}) } } },
      },
    },
    ...(status === undefined ? {} : { status: { conditions: [], replicaStatuses: {}, ...status } }),
  });
  if (!entry.ok) throw new Error('the test job does not parse');
  return entry;
}

function pod(jobName: string, index: number, node: string | undefined, o: { uid?: string; terminating?: boolean } = {}): Pod {
  const limit = jobName === 'fast' ? '4' : '1';
  return {
    metadata: {
      name: `${jobName}-worker-${index}`,
      namespace: NS,
      uid: o.uid ?? `${jobName}-${index}-uid`,
      labels: { 'training.kubeflow.org/replica-type': 'worker', 'training.kubeflow.org/replica-index': String(index) },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: jobName, uid: `${jobName}-uid`, controller: true }],
      ...(o.terminating === true ? { deletionTimestamp: new Date(T0) } : {}),
    },
    spec: {
      ...(node === undefined ? {} : { nodeName: node }),
      containers: [{ name: 'tensorflow', resources: { requests: { cpu: limit === '4' ? '200m' : '500m' }, limits: { cpu: limit } } }],
    },
    status: { phase: node === undefined ? 'Pending' : 'Running' },
  };
}

const nodeInfo = (name: string, labels: Record<string, string> = {}): NodeInfo => ({
  name,
  allocatable: { cpu: 4000, memory: 32e9, pods: 110 },
  labels,
  taints: [],
  unschedulable: false,
  ready: true,
});

/** Node a runs both jobs (limits 1+1+4 cores on 4: contended); b and c are empty. */
const VIEW: ClusterView = {
  nodes: [nodeInfo('a'), nodeInfo('b'), nodeInfo('c')],
  idle: new Map([
    ['a', { cpu: 2800, memory: 32e9, pods: 107 }],
    ['b', { cpu: 4000, memory: 32e9, pods: 110 }],
    ['c', { cpu: 4000, memory: 32e9, pods: 110 }],
  ]),
};

class FakeSteering implements MigrationSteeringPort {
  current: ClusterView | undefined = VIEW;
  readonly steered: string[] = [];
  readonly done_: string[] = [];
  view() {
    return this.current;
  }
  steer(job: string, node: string) {
    this.steered.push(`${job}→${node}`);
  }
  done(job: string) {
    this.done_.push(job);
  }
}

class Harness {
  now = T0;
  slow = job('slow', 2, '1', true);
  readonly fast = job('fast', 1, '4', false);
  pods = new Map<string, Pod[]>([
    ['ns/slow', [pod('slow', 0, 'a'), pod('slow', 1, 'a')]],
    ['ns/fast', [pod('fast', 0, 'a')]],
  ]);
  readonly steering = new FakeSteering();
  readonly removed: string[] = [];
  removal: Removal | Error = 'removed';
  readonly events: string[] = [];
  readonly written: MigrationStatus[] = [];
  readonly registry = new Registry();
  readonly step: MigrationStep;

  constructor() {
    this.step = new MigrationStep({
      steering: this.steering,
      remover: {
        remove: (p, removal) => {
          if (this.removal instanceof Error) return Promise.reject(this.removal);
          this.removed.push(`${p.metadata?.name ?? ''}/${p.metadata?.uid ?? ''} ${removal}`);
          return Promise.resolve(this.removal);
        },
      },
      status: {
        write: (_job, status) => {
          this.written.push(status);
          return Promise.resolve();
        },
      },
      event: (j, type, reason, message) => this.events.push(`${j.job.metadata.name} ${type} ${reason}: ${message}`),
      log: silentLogger(),
      registry: this.registry,
      settleTimeoutMs: SETTLE_MS,
    });
  }

  round() {
    const verdicts = new Map<string, JobVerdict>([
      ['ns/slow', { list: 'Completing', growthEfficiency: 0.001 }],
      ['ns/fast', { list: 'New', growthEfficiency: 0.1 }],
    ]);
    return this.step.round({
      now: this.now,
      jobs: [this.slow, this.fast],
      podsOf: (key) => this.pods.get(key) ?? [],
      keyOf: (e) => `${e.job.metadata.namespace ?? ''}/${e.job.metadata.name}`,
      verdicts,
    });
  }

  /** The old slow-worker-1 gone, its replacement (a new UID) bound to `node` (or not bound). */
  replace(node: string | undefined) {
    this.pods.set('ns/slow', [pod('slow', 0, 'a'), pod('slow', 1, node, { uid: 'replacement-uid' })]);
  }

  async counted(): Promise<Record<string, number>> {
    const metric = this.registry.getSingleMetric('tfjob_operator_worker_migrations_total');
    const values = (await metric?.get())?.values ?? [];
    return Object.fromEntries(values.map((v) => [String(v.labels['result']), v.value]));
  }

  reasons = () => this.events.map((e) => e.split(':')[0]);
  /** The events about the move itself (node a stays contended: later rounds also refuse, in the cooldown). */
  moveReasons = () => this.reasons().filter((r) => r?.includes('WorkerMigrationRefused') === false);
}

describe('MigrationStep', () => {
  it('deletes the slow job’s movable worker, steers its replacement to the roomy node, and says it is moving', async () => {
    const h = new Harness();
    const started = await h.round();
    expect(started.map((m) => `${m.pod} ${m.from}→${m.to}`)).toEqual(['slow-worker-1 a→b']);
    expect(h.removed).toEqual([`slow-worker-1/slow-1-uid ${REMOVAL_MIGRATION}`]);
    expect(h.steering.steered).toEqual(['ns/slow→b']);
    expect(h.reasons()).toEqual(['slow Normal WorkerMigrating']);
    expect(h.events[0]).toMatch(/slow-worker-1 deleted on a to be re-created on b .*ns\/fast \(New/);
    expect(h.written).toEqual([
      { migrations: 0, last: expect.objectContaining({ pod: 'slow-worker-1', from: 'a', to: 'b', state: 'Moving' }) as unknown },
    ]);
    expect(await h.counted()).toEqual({});
  });

  it('says WorkerMigrated only once the replacement is bound to the target, and moves nothing more in the cooldown', async () => {
    const h = new Harness();
    await h.round();
    h.pods.set('ns/slow', [pod('slow', 0, 'a'), pod('slow', 1, 'a', { terminating: true })]);
    h.now += 2_000;
    await h.round();
    h.replace(undefined);
    h.now += 2_000;
    await h.round();
    expect(h.reasons()).not.toContain('slow Normal WorkerMigrated');
    expect(h.steering.done_).toEqual([]);
    h.replace('b');
    h.now += 2_000;
    await h.round();
    expect(h.reasons()).toContain('slow Normal WorkerMigrated');
    expect(h.events.find((e) => e.includes('WorkerMigrated'))).toMatch(/slow-worker-1 re-created on b \(left a;/);
    expect(h.steering.done_).toEqual(['ns/slow']);
    expect(h.written.at(-1)).toEqual({ migrations: 1, last: expect.objectContaining({ to: 'b', state: 'Migrated' }) as unknown });
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrating', 'slow Normal WorkerMigrated']);
    // Node a is still contended (worker 0 and fast stay): the cooldown refuses, once, not every round.
    h.now += 2_000;
    await h.round();
    h.now += 2_000;
    await h.round();
    expect(h.removed).toHaveLength(1);
    const cooldown = h.events.filter((e) => e.includes('WorkerMigrationRefused'));
    expect(cooldown).toHaveLength(1);
    expect(cooldown[0]).toMatch(/Not moved off a: in its cooldown: moved at 2026-11-28T12:00:00Z \(cooldown 600s\)/);
    expect(await h.counted()).toEqual({ migrated: 1, refused: 1 });
  });

  it('a replacement bound elsewhere (the target filled first) is MigrationTargetLost with the node it went to', async () => {
    const h = new Harness();
    await h.round();
    h.replace('c');
    h.now += 2_000;
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrating', 'slow Warning MigrationTargetLost']);
    expect(h.events[1]).toMatch(/slow-worker-1 left a for b, but its replacement was placed on c instead/);
    expect(h.written.at(-1)).toEqual({
      migrations: 0,
      last: expect.objectContaining({ to: 'b', state: 'TargetLost', placedOn: 'c' }) as unknown,
    });
    expect(await h.counted()).toEqual({ target_lost: 1, refused: 1 });
    expect(h.steering.done_).toEqual(['ns/slow']);
  });

  it('a replacement not bound before the settle timeout is MigrationTargetLost too', async () => {
    const h = new Harness();
    await h.round();
    h.replace(undefined);
    h.now += SETTLE_MS - 1;
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrating']);
    h.now += 1;
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrating', 'slow Warning MigrationTargetLost']);
    expect(h.events.find((e) => e.includes('TargetLost'))).toMatch(
      /slow-worker-1 left a for b, but its replacement was not placed within 60s/,
    );
    expect(h.written.at(-1)?.last).toEqual(expect.objectContaining({ state: 'TargetLost' }));
    expect(h.written.at(-1)?.last).not.toHaveProperty('placedOn');
    expect(await h.counted()).toEqual({ target_lost: 1, refused: 1 });
  });

  it('a delete the API refuses is a warning, the steering is dropped, and nothing is counted as moved', async () => {
    const h = new Harness();
    h.removal = new Error('HTTP 403: forbidden');
    expect(await h.round()).toEqual([]);
    expect(h.reasons()).toEqual(['slow Warning WorkerMigrationRefused']);
    expect(h.events[0]).toMatch(/Cannot delete slow-worker-1 to move it to b: Error: HTTP 403/);
    expect(h.steering.done_).toEqual(['ns/slow']);
    expect(h.written).toEqual([]);
  });

  it('a worker already gone is no move: no event, no status, the steering dropped', async () => {
    const h = new Harness();
    h.removal = 'gone';
    expect(await h.round()).toEqual([]);
    expect(h.events).toEqual([]);
    expect(h.written).toEqual([]);
    expect(h.steering.done_).toEqual(['ns/slow']);
  });

  it('does nothing before the scheduling pass has shown it the nodes', async () => {
    const h = new Harness();
    h.steering.current = undefined;
    expect(await h.round()).toEqual([]);
    expect(h.removed).toEqual([]);
    expect(h.events).toEqual([]);
  });

  it("takes the target's constraints from the Worker template, not from the cached pod (which keeps none)", async () => {
    const h = new Harness();
    h.slow = job('slow', 2, '1', true, { pool: 'p' });
    h.steering.current = { ...VIEW, nodes: [nodeInfo('a', { pool: 'p' }), nodeInfo('b'), nodeInfo('c', { pool: 'p' })] };
    const started = await h.round();
    expect(started.map((m) => m.to)).toEqual(['c']);
  });

  it('with no uncontended node to go to, refuses once and deletes nothing', async () => {
    const h = new Harness();
    h.steering.current = { nodes: [nodeInfo('a')], idle: new Map([['a', { cpu: 2800, memory: 32e9, pods: 107 }]]) };
    await h.round();
    h.now += 2_000;
    await h.round();
    expect(h.removed).toEqual([]);
    expect(h.events).toEqual(['slow Normal WorkerMigrationRefused: Not moved off a: no other node']);
    expect(await h.counted()).toEqual({ refused: 1 });
  });
  it('settles a move a killed operator left Moving: WorkerMigrated once the replacement is on the target, steered there', async () => {
    const h = new Harness();
    const moving = { pod: 'slow-worker-1', from: 'a', to: 'b', time: '2026-11-28T11:59:50Z', reason: 'r', state: 'Moving' as const };
    h.slow = job('slow', 2, '1', true, undefined, { migration: { migrations: 0, last: moving } });
    // The old pod is still terminating: no replacement yet, nothing said.
    h.pods.set('ns/slow', [pod('slow', 0, 'a'), pod('slow', 1, 'a', { terminating: true })]);
    await h.round();
    expect(h.steering.steered).toEqual(['ns/slow→b']);
    expect(h.moveReasons()).toEqual([]);
    h.replace('b');
    h.now += 2_000;
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrated']);
    expect(h.written.at(-1)).toEqual({ migrations: 1, last: expect.objectContaining({ to: 'b', state: 'Migrated' }) as unknown });
    expect(h.removed).toEqual([]);
  });

  it("a killed operator's move whose replacement went elsewhere is MigrationTargetLost naming that node", async () => {
    const h = new Harness();
    const moving = { pod: 'slow-worker-1', from: 'a', to: 'b', time: '2026-11-28T11:59:50Z', reason: 'r', state: 'Moving' as const };
    h.slow = job('slow', 2, '1', true, undefined, { migration: { migrations: 0, last: moving } });
    h.replace('a');
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Warning MigrationTargetLost']);
    expect(h.written.at(-1)).toEqual({
      migrations: 0,
      last: expect.objectContaining({ to: 'b', state: 'TargetLost', placedOn: 'a' }) as unknown,
    });
    // a is still contended, but the status's move time holds the cooldown this operator never saw begin.
    expect(h.removed).toEqual([]);
    expect(h.events.at(-1)).toBe(
      'slow Normal WorkerMigrationRefused: Not moved off a: in its cooldown: moved at 2026-11-28T11:59:50Z (cooldown 600s)',
    );
  });

  it('a restarted operator keeps the cooldown of a move the status records as Migrated, and moves again after it', async () => {
    const h = new Harness();
    const migrated = { pod: 'slow-worker-1', from: 'b', to: 'a', time: '2026-11-28T11:55:00Z', reason: 'r', state: 'Migrated' as const };
    h.slow = job('slow', 2, '1', true, undefined, { migration: { migrations: 1, last: migrated } });
    expect(await h.round()).toEqual([]);
    expect(h.removed).toEqual([]);
    expect(h.events).toEqual([
      'slow Normal WorkerMigrationRefused: Not moved off a: in its cooldown: moved at 2026-11-28T11:55:00Z (cooldown 600s)',
    ]);
    h.now = Date.parse('2026-11-28T12:05:00Z');
    const started = await h.round();
    expect(started.map((m) => `${m.pod} ${m.from}→${m.to}`)).toEqual(['slow-worker-1 a→b']);
    // The count the status had is carried on.
    expect(h.written.at(-1)).toEqual({ migrations: 1, last: expect.objectContaining({ state: 'Moving' }) as unknown });
  });

  it('does not take its own settled move for a previous operator’s when the cached status still says Moving', async () => {
    const h = new Harness();
    await h.round();
    const moving = h.written.at(-1)!;
    h.replace('b');
    h.now += 2_000;
    await h.round();
    h.slow = job('slow', 2, '1', true, undefined, { migration: moving });
    h.now += 2_000;
    await h.round();
    expect(h.moveReasons()).toEqual(['slow Normal WorkerMigrating', 'slow Normal WorkerMigrated']);
  });
});
