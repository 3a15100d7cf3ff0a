// A migrated worker's replacement: the repair step places it on the preferred (target) node when
// kube-scheduler would accept it there with the room left, and otherwise as any repair.
import { describe, expect, it } from 'vitest';
import { planRepairs, type ClusterSnapshot, type NodeInfo, type Plan } from '../../../src/scheduler/index.ts';

const node = (name: string, o: Partial<NodeInfo> = {}): NodeInfo => ({
  name,
  allocatable: { cpu: 2000, pods: 110 },
  labels: {},
  taints: [],
  unschedulable: false,
  ready: true,
  ...o,
});
const EMPTY_PLAN: Plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };
const missing = [{ job: 'ns/slow', group: { type: 'Worker', requests: { cpu: 500 }, constraints: {} } }];

function snapshot(nodes: NodeInfo[], busyOnB = 0): ClusterSnapshot {
  return { now: 0, nodes, otherPods: busyOnB > 0 ? [{ key: 'x/y', node: 'b', requests: { cpu: busyOnB } }] : [], jobs: [] };
}

describe('planRepairs with a preferred node', () => {
  it('goes to the preferred node over the roomier one', () => {
    const s = snapshot([node('a'), node('b')], 1000);
    expect(planRepairs(s, EMPTY_PLAN, missing).map((r) => r.node)).toEqual(['a']);
    expect(planRepairs(s, EMPTY_PLAN, missing, () => 'b').map((r) => r.node)).toEqual(['b']);
  });

  it('falls back when the preferred node has no room or refuses the pod', () => {
    expect(planRepairs(snapshot([node('a'), node('b')], 1800), EMPTY_PLAN, missing, () => 'b').map((r) => r.node)).toEqual(['a']);
    const tainted = node('b', { taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(planRepairs(snapshot([node('a'), tainted]), EMPTY_PLAN, missing, () => 'b').map((r) => r.node)).toEqual(['a']);
  });
});
