import { describe, expect, it } from 'vitest';
import { cdfPoints, lineChart, niceTicks, stepPoints } from '../../../../lab/simulator/svg.ts';

describe('SVG charts', () => {
  it('chooses round ticks covering the maximum', () => {
    expect(niceTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(117)).toEqual([0, 50, 100, 150]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it('draws an empirical CDF as a staircase', () => {
    expect(cdfPoints([20, 10])).toEqual([
      [0, 0],
      [10, 0],
      [10, 0.5],
      [20, 0.5],
      [20, 1],
    ]);
  });

  it('draws a step function, and averages it into buckets when long', () => {
    const samples = [{ t: 0 }, { t: 10 }];
    const values = [1, 3];
    expect(stepPoints(samples, (i) => values[i]!, 20)).toEqual([
      [0, 1],
      [10, 1],
      [10, 3],
      [20, 3],
    ]);
    // One bucket over [0, 20]: 1 for 5 s, then 3 for 15 s.
    expect(stepPoints([{ t: 0 }, { t: 5 }], (i) => values[i]!, 20, 1)).toEqual([[10, (1 * 5 + 3 * 15) / 20]]);
  });

  it('renders one polyline and one legend entry per series, escaping text', () => {
    const svg = lineChart({
      title: 'a < b & c',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: 'one',
          points: [
            [0, 0],
            [1, 1],
          ],
        },
        {
          name: 'two',
          points: [
            [0, 1],
            [1, 0],
          ],
          dashed: true,
        },
      ],
    });
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('a &lt; b &amp; c');
    expect(svg).toContain('stroke-dasharray');
  });
});
