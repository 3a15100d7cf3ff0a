// `spreadOnlyForGain` (spread-for-gain.ts): growth that spreads a job past the fewest nodes its size
// needs keeps those workers only if its declared curve, less the spread risk, says it gains.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { keptForSpreadGain } from '../../../src/scheduler/spread-for-gain.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { cpu, describeReplicas, paperTestbed, running, snapshot } from './helpers/builders.ts';

/** yolov3 on the Philly cluster model: steps/s with 1..4 workers on one node. */
const YOLOV3 = [0.386, 0.752, 0.89, 1.133];

describe('keptForSpreadGain', () => {
  it('drops a lone worker on a further node when 3 of one node are nearly as fast (yolov3: 3 + 1)', () => {
    // 1 worker on node 0; 2 more placed there and 1 on node 3. 8 per node: 4 workers fit one node.
    // 1.133 × 0.75 = 0.85 < 0.89, the rate of the 3 on node 0.
    expect(keptForSpreadGain([0], [0, 0, 3], 8, YOLOV3)).toEqual([0, 0]);
  });

  it('spreads when the curve’s gain outweighs the risk (1 worker, its node full)', () => {
    expect(keptForSpreadGain([0], [3, 3, 3], 8, YOLOV3)).toEqual([3, 3, 3]);
  });

  it('keeps a further node the new size needs: the curve already describes it', () => {
    expect(keptForSpreadGain([0, 0, 0], [0, 1, 1], 4, [1, 1.1, 1.2, 1.3, 1.4, 1.5])).toEqual([0, 1, 1]);
  });

  it('drops the new nodes holding fewest new workers first, while the gain is too small', () => {
    const flat = [1, 1.1, 1.2, 1.3];
    // 4 workers: 1.3 × 0.75 < 1 (node 0 alone): node 1 goes; 3 workers: 1.2 × 0.75 < 1: node 2 too.
    expect(keptForSpreadGain([0], [1, 2, 2], 8, flat)).toEqual([]);
    expect(keptForSpreadGain([0], [2, 2, 1], 8, [1, 2, 3, 4])).toEqual([2, 2, 1]);
  });

  it('keeps every worker placed on the nodes the job already uses, however spread it is', () => {
    expect(keptForSpreadGain([0, 1, 2], [2, 1], 8, YOLOV3)).toEqual([2, 1]);
  });

  it('keeps everything without a curve or without a node that holds a worker', () => {
    expect(keptForSpreadGain([0], [0, 0, 3], 8)).toEqual([0, 0, 3]);
    expect(keptForSpreadGain([0], [1, 2], 0, YOLOV3)).toEqual([1, 2]);
  });
});

describe('spreadOnlyForGain in scale-out', () => {
  const busy = (used: Record<string, number>) =>
    Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

  it('does not spread a job whose curve gains too little from it (opt-in); spreads it by default', () => {
    // Paper testbed: 10 cpu per node, 2-cpu workers (5 per node). J: PS + worker on node-1, max 4;
    // node-1 has room for one more worker, node-3 is empty. 4 workers: 2.4 × 0.75 = 1.8 < 1.9 (2 on node-1).
    const snap = snapshot(
      paperTestbed(),
      [running('J', ['PS:0@node-1', 'Worker:0@node-1'], { max: 4, scalingCurve: [1, 1.9, 2.2, 2.4] })],
      {
        otherPods: busy({ 'node-1': 4, 'node-2': 10 }),
      },
    );
    const on = schedule('ours', snap, resolveSchedulerConfig({ improvements: { spreadOnlyForGain: true } }));
    expect(on.scaleOut.map((s) => describeReplicas(s.add))).toEqual([['Worker:1@node-1']]);
    expect(schedule('ours', snap).scaleOut.map((s) => describeReplicas(s.add))).toEqual([
      ['Worker:1@node-1', 'Worker:2@node-3', 'Worker:3@node-3'],
    ]);
  });
});
