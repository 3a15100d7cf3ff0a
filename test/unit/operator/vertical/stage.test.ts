// The vertical stage's glue, against small fakes of its own interfaces (resizer, node source, status
// writer, events): what it asks for, what it says, what it writes, and what a refusal becomes.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { toTFJobEntry, type ParsedTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { VerticalResizeStatus } from '../../../../src/api/v1/schema.ts';
import { observeResize } from '../../../../src/operator/vertical/resize-state.ts';
import { VerticalStage, type VerticalStageDeps } from '../../../../src/operator/vertical/stage.ts';
import type { CpuResize } from '../../../../src/progress/follower/cpu-resize.ts';
import type { EvaluationSeries } from '../../../../src/progress/signals/index.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';

const T0 = Date.UTC(2026, 10, 28, 12);
const NS = 'ns';

function tfjob(name: string, o: { annotations?: Record<string, string>; status?: Record<string, unknown> } = {}): ParsedTFJobEntry {
  const container = { name: 'tensorflow', image: 'tf', resources: { requests: { cpu: '200m' }, limits: { cpu: '1' } } };
  const entry = toTFJobEntry({
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name, namespace: NS, uid: `${name}-uid`, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { tfReplicaSpecs: { Worker: { replicas: 1, template: { spec: { containers: [container] } } } } },
    ...(o.status ? { status: o.status } : {}),
  });
  if (!entry.ok) throw new Error('the test job does not parse');
  return entry;
}

function pod(job: string, limit = '1', extra: Partial<NonNullable<Pod['status']>> = {}): Pod {
  return {
    metadata: {
      name: `${job}-worker-0`,
      namespace: NS,
      labels: { 'training.kubeflow.org/replica-type': 'worker' },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: job, uid: `${job}-uid`, controller: true }],
    },
    spec: { nodeName: 'n1', containers: [{ name: 'tensorflow', resources: { requests: { cpu: '200m' }, limits: { cpu: limit } } }] },
    status: { phase: 'Running', ...extra },
  };
}

const lossSeries = (points: [number, number][]): EvaluationSeries => ({
  name: 'loss',
  higherIsBetter: false,
  source: 'log',
  points: points.map(([time, value]) => ({ time, value })),
});

class Harness {
  now = T0;
  jobs: TFJobEntry[] = [];
  pods = new Map<string, Pod[]>();
  series = new Map<string, EvaluationSeries>();
  resizes: CpuResize[] = [];
  refuse: Error | undefined;
  events: string[] = [];
  written = new Map<string, VerticalResizeStatus>();
  /** The CPU usage the fake kubelets report (namespace/pod/container → millicore-seconds); asked for which nodes. */
  usage = new Map<string, number>();
  usageAskedFor: string[][] = [];
  readonly stage: VerticalStage;

  constructor(policy: VerticalStageDeps['policy'], withUsage = false) {
    this.stage = new VerticalStage({
      policy,
      jobs: () => this.jobs,
      podsOf: (key) => this.pods.get(key) ?? [],
      series: (key) => this.series.get(key),
      nodes: { allocatable: (names) => Promise.resolve(names.map((name) => ({ name, allocatableMillis: 2000 }))) },
      resizer: {
        resize: (r) => {
          if (this.refuse) return Promise.reject(this.refuse);
          this.resizes.push(r);
          return Promise.resolve();
        },
      },
      status: {
        write: (job, status) => {
          this.written.set(job.job.metadata.name, status);
          return Promise.resolve();
        },
      },
      event: (job, type, reason, message) => this.events.push(`${job.metadata?.name ?? ''} ${type} ${reason}: ${message}`),
      log: silentLogger(),
      intervalMs: 20_000,
      now: () => this.now,
      ...(withUsage
        ? {
            usage: {
              used: (nodes: readonly string[]) => {
                this.usageAskedFor.push([...nodes]);
                return Promise.resolve(this.usage);
              },
            },
          }
        : {}),
    });
  }
}

/** Two jobs on one node: `fast`'s loss halves in 20 s, `slow`'s barely moves. */
function flowConHarness(withUsage = false): Harness {
  const h = new Harness('flowcon', withUsage);
  h.jobs = [tfjob('fast'), tfjob('slow')];
  h.pods.set('ns/fast', [pod('fast')]);
  h.pods.set('ns/slow', [pod('slow')]);
  h.series.set('ns/fast', lossSeries([[T0, 1]]));
  h.series.set('ns/slow', lossSeries([[T0, 1]]));
  return h;
}

/** 20 s on: fast's loss halved, slow's moved by half a percent. */
function twentySecondsLater(h: Harness): void {
  h.now = T0 + 20_000;
  h.series.set(
    'ns/fast',
    lossSeries([
      [T0, 1],
      [T0 + 19_000, 0.5],
    ]),
  );
  h.series.set(
    'ns/slow',
    lossSeries([
      [T0, 1],
      [T0 + 19_000, 0.995],
    ]),
  );
}

describe('VerticalStage (flowcon)', () => {
  it("resizes the fast learner's container in place, says so in an event and in status.verticalResize", async () => {
    const h = flowConHarness();
    expect(await h.stage.tick()).toBe(true);
    expect(h.resizes).toEqual([]);
    expect(await h.stage.tick()).toBe(false); // not due yet, same jobs
    twentySecondsLater(h);
    expect(await h.stage.tick()).toBe(true);
    expect(h.resizes).toEqual([{ namespace: NS, pod: 'fast-worker-0', container: 'tensorflow', limitMillis: 1980, lower: false }]);
    expect(h.events).toEqual([
      expect.stringMatching(/^fast Normal CPULimitResized: CPU limit fast-worker-0 1 → 1980m \(in place\): FlowCon: New/),
    ]);
    expect(h.written.get('fast')).toMatchObject({
      policy: 'flowcon',
      list: 'New',
      containers: [{ pod: 'fast-worker-0', container: 'tensorflow', cpuLimit: '1980m', previousCpuLimit: '1', state: 'Requested' }],
    });
    expect(h.written.get('slow')).toMatchObject({ policy: 'flowcon', list: 'Watching' });
    expect(h.written.get('slow')?.containers).toBeUndefined();
  });

  it('--flowcon-cpu used: growth per CPU-second the kubelet counted; a job whose usage is unknown falls back to allowed', async () => {
    const h = flowConHarness(true);
    h.usage = new Map([
      ['ns/fast-worker-0/tensorflow', 10_000],
      ['ns/slow-worker-0/tensorflow', 10_000],
    ]);
    await h.stage.tick();
    twentySecondsLater(h);
    // fast used half a core for 20 s (10 core-seconds): gain 50 % per half core, 1.0 per core used. slow's
    // node could not be read this time: its gain stays per core allowed (0.005, below α: Watching).
    h.usage = new Map([['ns/fast-worker-0/tensorflow', 20_000]]);
    await h.stage.tick();
    expect(h.usageAskedFor).toEqual([['n1'], ['n1']]);
    expect(h.events).toEqual([expect.stringMatching(/FlowCon: New, gain 1\/core used per interval/)]);
    expect(h.written.get('slow')).toMatchObject({ list: 'Watching' });
  });

  it('an API refusal is a Warning event and a Failed entry with the message; the job runs on', async () => {
    const h = flowConHarness();
    await h.stage.tick();
    h.now = T0 + 20_000;
    h.series.set(
      'ns/fast',
      lossSeries([
        [T0, 1],
        [T0 + 19_000, 0.5],
      ]),
    );
    h.refuse = Object.assign(new Error('refused'), { code: 403, body: JSON.stringify({ message: 'pods "fast-worker-0" is forbidden' }) });
    await h.stage.tick();
    expect(h.events).toEqual([
      expect.stringMatching(/^fast Warning CPULimitResizeFailed: In-place CPU resize refused: fast-worker-0 to 2: .*forbidden/),
    ]);
    expect(h.written.get('fast')?.containers).toEqual([
      expect.objectContaining({
        pod: 'fast-worker-0',
        cpuLimit: '2',
        state: 'Failed',
        message: expect.stringContaining('forbidden') as string,
      }),
    ]);
  });

  it('a job that opted out, or without progress, is left alone and says why', async () => {
    const h = flowConHarness();
    h.jobs = [tfjob('fast', { annotations: { 'tfjob-operator.kubeflow.org/cpu-resize': 'false' } }), tfjob('slow')];
    h.series.delete('ns/slow');
    await h.stage.tick();
    h.now = T0 + 20_000;
    h.series.set(
      'ns/fast',
      lossSeries([
        [T0, 1],
        [T0 + 19_000, 0.5],
      ]),
    );
    await h.stage.tick();
    expect(h.resizes).toEqual([]);
    expect(h.events).toEqual([]);
    expect(h.written.get('fast')).toEqual(expect.objectContaining({ leftAlone: 'opted out (cpu-resize annotation)' }));
    expect(h.written.get('slow')).toEqual(expect.objectContaining({ leftAlone: 'no progress information' }));
  });

  it('a new running job starts a round at once (FlowCon Algorithm 2)', async () => {
    const h = flowConHarness();
    await h.stage.tick();
    h.now = T0 + 1_000;
    expect(await h.stage.tick()).toBe(false);
    h.jobs = [...h.jobs, tfjob('third')];
    h.pods.set('ns/third', [pod('third')]);
    expect(await h.stage.tick()).toBe(true);
  });
});

describe('VerticalStage (dqoes)', () => {
  const qoe = (cls: string, measured: string, required: string) => ({
    qoe: { class: cls, measuredStepsPerSecond: measured, requiredStepsPerSecond: required },
  });

  it('moves CPU limit from the job ahead of its target to the one behind on the same node', async () => {
    const h = new Harness('dqoes');
    h.jobs = [tfjob('ahead', { status: qoe('Ahead', '15', '10') }), tfjob('behind', { status: qoe('Behind', '5', '10') })];
    h.pods.set('ns/ahead', [pod('ahead')]);
    h.pods.set('ns/behind', [pod('behind')]);
    await h.stage.tick();
    expect(h.resizes.map((r) => [r.pod, r.limitMillis])).toEqual([
      ['ahead-worker-0', 900],
      ['behind-worker-0', 1100],
    ]);
    expect(h.events).toEqual([
      expect.stringMatching(/^ahead Normal CPULimitResized: CPU limit ahead-worker-0 1 → 900m \(in place\): DQoES: ahead/),
      expect.stringMatching(/^behind Normal CPULimitResized: CPU limit behind-worker-0 1 → 1100m \(in place\): DQoES: behind/),
    ]);
  });

  it('backs off while G and B converge and runs at once when a job leaves S (DQoES Algorithm 2)', async () => {
    const h = new Harness('dqoes');
    h.pods.set('ns/ahead', [pod('ahead')]);
    h.pods.set('ns/behind', [pod('behind')]);
    h.pods.set('ns/steady', [pod('steady')]);
    const at = (ahead: string, behind: string, steady = 'Satisfied') => {
      h.jobs = [
        tfjob('ahead', { status: qoe('Ahead', ahead, '10') }),
        tfjob('behind', { status: qoe('Behind', behind, '10') }),
        tfjob('steady', { status: qoe(steady, steady === 'Satisfied' ? '10' : '5', '10') }),
      ];
    };
    // Both sides closer to 10 steps/s every round: after three converging rounds the interval doubles.
    const rates: [string, string][] = [
      ['18', '2'],
      ['16', '4'],
      ['14', '6'],
      ['13', '7'],
    ];
    for (const [i, [a, b]] of rates.entries()) {
      at(a, b);
      h.now = T0 + i * 20_000;
      expect(await h.stage.tick()).toBe(true);
    }
    at('12.5', '7.5');
    h.now = T0 + 3 * 20_000 + 20_000;
    expect(await h.stage.tick()).toBe(false); // the interval is 40 s now
    h.now = T0 + 3 * 20_000 + 40_000;
    expect(await h.stage.tick()).toBe(true);
    // `steady` falls behind: S lost a job, so the next round comes at the next check, not in 40 s.
    at('12.5', '7.5', 'Behind');
    h.now += 20_000;
    expect(await h.stage.tick()).toBe(false);
    h.now += 40_000;
    expect(await h.stage.tick()).toBe(true);
    h.now += 2_000;
    expect(await h.stage.tick()).toBe(true);
  });

  it("the kubelet's Infeasible is a Warning event once and the entry's state", async () => {
    const h = new Harness('dqoes');
    const asked = {
      pod: 'behind-worker-0',
      container: 'tensorflow',
      cpuLimit: '1100m',
      previousCpuLimit: '1',
      time: '2026-11-28T12:00:00Z',
      state: 'Requested',
    };
    h.jobs = [tfjob('behind', { status: { ...qoe('Satisfied', '10', '10'), verticalResize: { policy: 'dqoes', containers: [asked] } } })];
    const pending = {
      conditions: [
        {
          type: 'PodResizePending',
          status: 'True',
          reason: 'Infeasible',
          message: "Node didn't have enough capacity: cpu, requested: 1100, capacity: 1000",
        },
      ],
    };
    h.pods.set('ns/behind', [pod('behind', '1100m', pending)]);
    await h.stage.tick();
    expect(h.written.get('behind')?.containers).toEqual([
      { ...asked, state: 'Infeasible', message: expect.stringContaining('capacity') as string },
    ]);
    expect(h.events).toEqual([
      expect.stringMatching(
        /^behind Warning CPULimitResizeRefused: The kubelet holds the CPU limit 1100m of behind-worker-0 as Infeasible: Node didn't/,
      ),
    ]);
  });
});

describe('observeResize', () => {
  it.each([
    ['gone pod', undefined, undefined],
    ['limit changed by someone else since', pod('a', '700m'), undefined],
    ['no word from the kubelet (kwok)', pod('a', '1500m'), 'Requested'],
    ['Deferred', pod('a', '1500m', { conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Deferred' }] }), 'Deferred'],
    ['in progress', pod('a', '1500m', { conditions: [{ type: 'PodResizeInProgress', status: 'True' }] }), 'InProgress'],
    [
      'applied',
      pod('a', '1500m', {
        containerStatuses: [
          { name: 'tensorflow', image: 'tf', imageID: '', ready: true, restartCount: 0, resources: { limits: { cpu: '1500m' } } },
        ],
      }),
      'Applied',
    ],
  ])('%s → %s', (_, p, state) => {
    expect(observeResize(p, 'tensorflow', 1500)?.state).toBe(state);
  });
});

describe('VerticalStage refusals', () => {
  it('a container the API server refused is not asked again for ten minutes', async () => {
    const h = flowConHarness();
    await h.stage.tick();
    h.refuse = Object.assign(new Error('refused'), {
      code: 422,
      body: JSON.stringify({ message: 'Pod running on node without support for resize' }),
    });
    for (let i = 1; i <= 3; i++) {
      h.now = T0 + i * 20_000;
      h.series.set(
        'ns/fast',
        lossSeries([
          [T0, 1],
          [h.now - 1_000, 0.5 ** i],
        ]),
      );
      await h.stage.tick();
    }
    expect(h.events.filter((e) => e.includes('CPULimitResizeFailed'))).toHaveLength(1);
    h.refuse = undefined;
    h.now = T0 + 11 * 60_000;
    h.series.set(
      'ns/fast',
      lossSeries([
        [T0, 1],
        [h.now - 1_000, 0.01],
      ]),
    );
    await h.stage.tick();
    expect(h.resizes.map((r) => r.pod)).toEqual(['fast-worker-0']);
  });
});

describe('VerticalStage memory of its own limits', () => {
  it('a limit it set is its own also before the job status shows it (a status write lagging or lost)', async () => {
    const h = flowConHarness();
    await h.stage.tick();
    h.now = T0 + 20_000;
    h.series.set(
      'ns/fast',
      lossSeries([
        [T0, 1],
        [T0 + 19_000, 0.5],
      ]),
    );
    await h.stage.tick();
    // slow has no new value: fast alone has a growth figure, and gets the node.
    expect(h.resizes.map((r) => r.limitMillis)).toEqual([2000]);
    // The pod shows the new limit; the cached job's status does not have the entry yet.
    h.pods.set('ns/fast', [pod('fast', '2')]);
    h.now = T0 + 40_000;
    h.series.set(
      'ns/fast',
      lossSeries([
        [T0, 1],
        [T0 + 19_000, 0.5],
        [T0 + 39_000, 0.25],
      ]),
    );
    await h.stage.tick();
    expect(h.written.get('fast')?.leftAlone).toBeUndefined();
    expect(h.written.get('fast')?.list).toBe('New');
  });
});
