// Reasons for waiting jobs: what the job needs, what the cluster offers, and which rule applies.
import { describe, expect, it } from 'vitest';
import {
  describeConfiguration,
  describeFailure,
  ExplainTexts,
  formatDuration,
  formatWeight,
} from '../../../src/scheduler/model/explain.ts';
import { schedule } from '../../../lab/simulator/policies/registry.ts';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import { findPlacement, minimumItems, minimumKey } from '../../../src/scheduler/model/placement.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { cpu, Gi, node, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

describe('waiting reasons', () => {
  it('formats weights, durations and configurations', () => {
    expect(formatWeight(0.41234)).toBe('0.41');
    expect(formatWeight(0.999987)).toBe('0.999987');
    expect(formatWeight(1)).toBe('1');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(30 * 60_000)).toBe('30m');
    expect(formatDuration(3 * 3600_000)).toBe('3.0h');
    const m = buildPassModel(
      snapshot(paperTestbed(), [waiting('j', { min: 2, worker: { cpu: cpu(2), memory: 4 * Gi } })]),
      DEFAULT_SCHEDULER_CONFIG,
    );
    expect(describeConfiguration(minimumItems(m.jobs.get('j')!))).toBe('1 PS (1 cpu / 2Gi) + 2 Worker (2 cpu / 4Gi each) = 5 cpu / 10Gi');
  });

  it('names the largest free slot and the running job that outranks it (the example of scheduling.md §6)', () => {
    // R (ω≈0.66) runs at its maximum of 20 one-cpu workers, leaving 3 cpu on each node;
    // W needs a 4-cpu worker: share 5/30 + 10Gi/96Gi = 0.2708, ω = σ(2.5 · (0.3466 − ln 2.708)) = 0.1647.
    const workers = [...Array(20).keys()].map((i) => `Worker:${i}@node-${i < 6 ? 1 : i < 13 ? 2 : 3}`);
    const snap = snapshot(
      paperTestbed(),
      [
        running('ns/R', ['PS:0@node-1', ...workers], { worker: { cpu: cpu(1), memory: 2 * Gi }, max: 20 }),
        waiting('ns/W', { worker: { cpu: cpu(4), memory: 8 * Gi }, submittedAt: 5 }),
      ],
      { now: 10 },
    );
    const plan = schedule('kod2', snap);
    const reason = plan.waiting.find((w) => w.job === 'ns/W')!.reason;
    expect(reason).toBe(
      'needs 1 PS (1 cpu / 2Gi) + 1 Worker (4 cpu / 8Gi) = 5 cpu / 10Gi; largest free slot on a node Worker may use is 3 cpu / 18Gi (node-1); weight 0.16 below running max 0.66 (ns/R), so it may not preempt',
    );
  });

  it('says when the nodes are at their pod limit, and otherwise describes a node that still takes a pod', () => {
    // a: 8 cpu free but its 2 pod slots taken by other tenants; b: 3 cpu free and pod slots.
    const nodes = [node('a', { cpu: cpu(10), memory: 64 * Gi, pods: 2 }), node('b', { cpu: cpu(4), memory: 64 * Gi, pods: 10 })];
    const others = [
      { key: 'other/x', node: 'a', requests: { cpu: cpu(1) } },
      { key: 'other/y', node: 'a', requests: { cpu: cpu(1) } },
      { key: 'other/z', node: 'b', requests: { cpu: cpu(1) } },
    ];
    const big = waiting('j', { min: 1, worker: { cpu: cpu(4), memory: Gi } });
    const plan = schedule('ours', { ...snapshot(nodes, [big]), otherPods: others });
    // Node a has the most cpu free, but no pod fits there: the message points at b.
    expect(plan.waiting[0]!.reason).toContain('largest free slot on a node Worker may use is 3 cpu / 64Gi (b)');
    const full = [
      ...others,
      ...[...Array(7).keys()].map((i) => ({ key: `other/b${i}`, node: 'b', requests: { cpu: cpu(0) } })),
      { key: 'other/last', node: 'b', requests: { cpu: cpu(0) } },
      { key: 'other/more', node: 'b', requests: { cpu: cpu(0) } },
    ];
    const blocked = schedule('ours', { ...snapshot(nodes, [waiting('k')]), otherPods: full });
    expect(blocked.waiting[0]!.reason).toContain('every node PS may use (2) is at its pod limit (max pods), none has a free pod slot');
    expect(blocked.waiting[0]!.reason).not.toContain('largest free slot');
  });

  it('counts why nodes were ruled out when no node accepts a replica', () => {
    const nodes = [
      node('a', { cpu: cpu(8) }, { ready: false }),
      node('b', { cpu: cpu(8) }, { unschedulable: true }),
      node('c', { cpu: cpu(8) }, { taints: [{ key: 'x', effect: 'NoExecute' }] }),
      node('d', { cpu: cpu(8) }, { labels: { zone: 'b' } }),
    ];
    const plan = schedule('ours', snapshot(nodes, [waiting('j', { constraints: { nodeSelector: { zone: 'a' } } })]));
    expect(plan.waiting[0]!.reason).toContain(
      'no node accepts PS (4 nodes: 1 NotReady, 1 cordoned, 1 untolerated taint, 1 nodeSelector mismatch)',
    );
  });

  it('says when preemption cannot help, and marks starving jobs', () => {
    const snap = snapshot(
      paperTestbed(),
      [
        running('R', ['PS:0@node-1', 'Worker:0@node-1'], { worker: { cpu: cpu(6), memory: 8 * Gi }, min: 1, max: 1 }),
        waiting('W', { worker: { cpu: cpu(5), memory: 4 * Gi }, submittedAt: 0 }),
      ],
      { now: 3_600_000, otherPods: busy({ 'node-1': 1, 'node-2': 6, 'node-3': 6 }) },
    );
    const plan = schedule('kod2', snap, resolveSchedulerConfig({ starveLimitMs: 1_800_000 }));
    const w = plan.waiting[0]!;
    expect(w.starving).toBe(true);
    expect(w.weight).toBe(1);
    expect(w.reason).toMatch(/^starving \(waited 60m, limit 30m\); needs /);
    expect(w.reason).toContain('is the highest waiting, but no running job ranked below it has workers above its minimum');
  });

  it('gang-fifo and tf-operator never report starvation', () => {
    const snap = snapshot(paperTestbed(), [waiting('huge', { worker: { cpu: cpu(9), memory: Gi }, min: 4, max: 4, submittedAt: 0 })], {
      now: 10_000_000,
    });
    const gang = schedule('gang-fifo', snap, resolveSchedulerConfig({ starveLimitMs: 1000 }));
    expect(gang.waiting[0]!.starving).toBe(false);
    expect(gang.waiting[0]!.weight).toBeLessThan(1);
    expect(gang.waiting[0]!.reason).not.toContain('starving');
  });

  it('writes the parts many jobs share once per pass, and the same words as writing each alone', () => {
    // Three nodes of 3.9 cpu: a and b ask for the same 4-cpu workers, c for more of them; d and e
    // (no PS) for 2-cpu ones, one per node: room for only 3 of 4, 3 of 5 (the counts are words too).
    const nodes = ['n1', 'n2', 'n3'].map((n) => node(n, { cpu: 3900, memory: 64 * Gi }));
    const jobs = [
      waiting('a', { min: 1, worker: { cpu: cpu(4), memory: Gi } }),
      waiting('b', { min: 1, worker: { cpu: cpu(4), memory: Gi } }),
      waiting('c', { min: 2, worker: { cpu: cpu(4), memory: Gi } }),
      waiting('d', { psCount: 0, min: 4, worker: { cpu: cpu(2), memory: Gi } }),
      waiting('e', { psCount: 0, min: 5, worker: { cpu: cpu(2), memory: Gi } }),
    ];
    const m = buildPassModel(snapshot(nodes, jobs), DEFAULT_SCHEDULER_CONFIG);
    const texts = new ExplainTexts();
    const written = new Map<string, { configuration: string; failure: string }>();
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      const job = m.jobs.get(key)!;
      const out = findPlacement(m.state, minimumItems(job));
      expect(out.ok).toBe(false);
      if (out.ok) return;
      const configuration = texts.configuration(minimumKey(job), minimumItems(job));
      const failure = texts.failure(m.state, out.failure);
      expect(configuration).toBe(describeConfiguration(minimumItems(job)));
      expect(failure).toBe(describeFailure(m.state, out.failure));
      written.set(key, { configuration, failure });
    }
    expect(written.get('a')).toEqual(written.get('b'));
    expect(written.get('c')!.configuration).not.toBe(written.get('a')!.configuration);
    expect(written.get('d')!.failure).toContain('room for only 3 of 4 Worker');
    expect(written.get('e')!.failure).toContain('room for only 3 of 5 Worker');
  });
});
