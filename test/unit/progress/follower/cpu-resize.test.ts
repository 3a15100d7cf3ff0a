// In-place CPU resize of converged jobs' workers (--resize-converged-cpu): what is planned from the
// job's template, its phase and its pods, and what the progress loop does with it (a fake resizer).
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { toTFJobEntry, type ParsedTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import { planCpuResizes, type CpuResize, type PodResizer } from '../../../../src/progress/follower/cpu-resize.ts';
import { ProgressLoop, type ProgressRounds } from '../../../../src/progress/follower/loop.ts';
import type { ProgressTarget, RoundReport } from '../../../../src/progress/follower/reader.ts';
import type { MeasuredRate, Phase, ProgressView } from '../../../../src/progress/signals/index.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';

const T0 = Date.UTC(2026, 10, 26);

function job(resources: { requests?: Record<string, string>; limits?: Record<string, string> } | undefined): ParsedTFJobEntry {
  const container = { name: 'tensorflow', image: 'tf', ...(resources === undefined ? {} : { resources }) };
  const entry = toTFJobEntry({
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name: 'a', namespace: 'ns', uid: 'a-uid' },
    spec: { tfReplicaSpecs: { Worker: { replicas: 2, template: { spec: { containers: [container] } } } } },
  });
  if (!entry.ok) throw new Error('the test job does not parse');
  return entry;
}

function pod(name: string, cpuLimit: string | undefined, o: { phase?: string; type?: string; owner?: string } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      labels: { 'training.kubeflow.org/replica-type': o.type ?? 'worker' },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'a', uid: o.owner ?? 'a-uid', controller: true }],
    },
    spec: {
      containers: [
        { name: 'tensorflow', ...(cpuLimit === undefined ? {} : { resources: { requests: { cpu: '500m' }, limits: { cpu: cpuLimit } } }) },
      ],
    },
    status: { phase: o.phase ?? 'Running' },
  };
}

const BURSTABLE = { requests: { cpu: '500m' }, limits: { cpu: '2' } };
const limits = (plans: readonly CpuResize[]) => plans.map((p) => [p.pod, p.limitMillis, p.lower]);

describe('planCpuResizes', () => {
  it("lowers a converged job's running workers to F × the template's limit, and gives it back afterwards", () => {
    const pods = [pod('a-worker-0', '2'), pod('a-worker-1', '2'), pod('a-ps-0', '2', { type: 'ps' })];
    expect(limits(planCpuResizes(job(BURSTABLE), 'Converged', pods, 0.5))).toEqual([
      ['a-worker-0', 1000, true],
      ['a-worker-1', 1000, true],
    ]);
    const lowered = [pod('a-worker-0', '1'), pod('a-worker-1', '1000m')];
    expect(planCpuResizes(job(BURSTABLE), 'Converged', lowered, 0.5)).toEqual([]); // already there
    expect(limits(planCpuResizes(job(BURSTABLE), 'Progressing', lowered, 0.5))).toEqual([
      ['a-worker-0', 2000, false],
      ['a-worker-1', 2000, false],
    ]);
    // No signal (stale or gone): as not converged.
    expect(limits(planCpuResizes(job(BURSTABLE), undefined, lowered, 0.5))).toEqual([
      ['a-worker-0', 2000, false],
      ['a-worker-1', 2000, false],
    ]);
  });

  it('never goes below the request', () => {
    expect(limits(planCpuResizes(job(BURSTABLE), 'Converged', [pod('a-worker-0', '2')], 0.1))).toEqual([['a-worker-0', 500, true]]);
  });

  it('leaves alone what it may not or should not change', () => {
    const pods = [pod('a-worker-0', '2')];
    // No CPU limit, or a limit equal to the request (the QoS class could change): nothing.
    expect(planCpuResizes(job(undefined), 'Converged', pods, 0.5)).toEqual([]);
    expect(planCpuResizes(job({ requests: { cpu: '2' }, limits: { cpu: '2' } }), 'Converged', pods, 0.5)).toEqual([]);
    // Pods not running, terminating, of another owner, or whose limit someone else set.
    const others = [
      pod('a-worker-0', '2', { phase: 'Pending' }),
      { ...pod('a-worker-1', '2'), metadata: { ...pod('a-worker-1', '2').metadata, deletionTimestamp: new Date(T0).toISOString() } },
      pod('a-worker-2', '2', { owner: 'other-uid' }),
      pod('a-worker-3', '3'),
    ] as Pod[];
    expect(planCpuResizes(job(BURSTABLE), 'Converged', others, 0.5)).toEqual([]);
  });
});

class FakeReader implements ProgressRounds {
  phase: Phase | undefined = 'Converged';
  round(targets: readonly ProgressTarget[]): Promise<RoundReport> {
    return Promise.resolve({ read: targets.map((t) => t.key), deferred: [], phaseChanges: new Map(), problems: new Map() });
  }
  view(): ProgressView | undefined {
    return this.phase === undefined
      ? undefined
      : { phase: this.phase, since: T0, metric: 0.9, name: 'accuracy', higherIsBetter: true, lastUpdate: T0 };
  }
  rate(): MeasuredRate | undefined {
    return undefined;
  }
}

class FakeResizer implements PodResizer {
  readonly calls: string[] = [];
  attempts = 0;
  refuse = false;
  resize(r: CpuResize): Promise<void> {
    this.attempts++;
    if (this.refuse) return Promise.reject(Object.assign(new Error('pods "a-worker-0" is forbidden'), { code: 403 }));
    this.calls.push(`${r.pod}=${r.limitMillis}m`);
    return Promise.resolve();
  }
}

describe('the progress loop with --resize-converged-cpu', () => {
  const setup = () => {
    const entry: TFJobEntry = job(BURSTABLE);
    const pods = [pod('a-worker-0', '2'), pod('a-worker-1', '2')];
    const events: string[] = [];
    const reader = new FakeReader();
    const resizer = new FakeResizer();
    let now = T0;
    const loop = new ProgressLoop({
      jobs: () => [entry],
      pod: (_ns, name) => pods.find((p) => p.metadata?.name === name),
      podsOf: () => pods,
      followAll: true,
      reader,
      event: (_job, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
      changed: () => undefined,
      log: silentLogger(),
      now: () => (now += 60_000),
      resize: { fraction: 0.5, resizer },
    });
    return { loop, events, reader, resizer };
  };

  it('resizes after a round and says so in one event per job', async () => {
    const { loop, events, resizer } = setup();
    await loop.tick();
    expect(resizer.calls).toEqual(['a-worker-0=1000m', 'a-worker-1=1000m']);
    expect(events.filter((e) => e.includes('CpuResized'))).toEqual([
      'Normal CpuResized: Lowered the CPU limit of a-worker-0, a-worker-1 to 1000m in place: the job has converged (--resize-converged-cpu)',
    ]);
  });

  it('says a refusal in a warning on the job, and does not ask again for that pod for ten minutes', async () => {
    const { loop, events, resizer } = setup();
    resizer.refuse = true;
    await loop.tick();
    await loop.tick();
    // The first pod was refused and is left alone; the job's other pod is tried on the next round.
    expect(resizer.attempts).toBe(2);
    expect(events.filter((e) => e.includes('CpuResizeFailed'))).toEqual([
      'Warning CpuResizeFailed: In-place CPU resize of a-worker-0 to 1000m refused (HTTP 403): pods "a-worker-0" is forbidden',
    ]);
  });
});
