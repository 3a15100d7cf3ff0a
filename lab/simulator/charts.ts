// The three charts of docs/simulation-results.md §1 for one scenario, one series per policy.
import type { ScenarioRun } from './run.ts';
import { cdfPoints, lineChart, stepPoints } from './svg.ts';

/** Seconds on the x axis read badly past a few hours. */
function timeUnit(maxSeconds: number): { readonly label: string; readonly divisor: number } {
  if (maxSeconds > 4 * 3600) return { label: 'hours', divisor: 3600 };
  if (maxSeconds > 600) return { label: 'minutes', divisor: 60 };
  return { label: 'seconds', divisor: 1 };
}

/** File name → SVG text. */
export function scenarioCharts(scenarioRun: ScenarioRun): Map<string, string> {
  const name = scenarioRun.scenario.definition.name;
  const charts = new Map<string, string>();
  const runs = scenarioRun.runs;

  const jcts = runs.map((r) => r.result.jobs.flatMap((j) => (j.jct === null ? [] : [j.jct])));
  const jctUnit = timeUnit(Math.max(0, ...jcts.flat()));
  charts.set(
    `${name}-jct-cdf.svg`,
    lineChart({
      title: `${name}: JCT CDF (finished jobs)`,
      xLabel: `job completion time (${jctUnit.label})`,
      yLabel: 'fraction of jobs',
      yMax: 1,
      series: runs.map((r, i) => ({
        name: `${r.policy} (${r.summary.unfinished} unfinished)`,
        points: cdfPoints(jcts[i]!.map((v) => v / jctUnit.divisor)).map(([x, y]) => [x, y * (r.summary.finished / r.summary.jobs)]),
      })),
    }),
  );

  const end = Math.max(...runs.map((r) => r.result.end));
  const unit = timeUnit(end);
  const over = (pick: (run: ScenarioRun['runs'][number], i: number) => number, run: ScenarioRun['runs'][number]): [number, number][] =>
    stepPoints(run.result.timeline, (i) => pick(run, i), run.result.end).map(([t, v]) => [t / unit.divisor, v]);

  for (const [resource, total] of Object.entries(scenarioRun.runs[0]?.result.capacity ?? {})) {
    if (total <= 0) continue;
    charts.set(
      `${name}-utilisation-${resource.replace(/[^a-z0-9]+/gi, '-')}.svg`,
      lineChart({
        title: `${name}: ${resource} allocated (solid) and useful (dashed)`,
        xLabel: `time (${unit.label})`,
        yLabel: `share of cluster ${resource}`,
        yMax: 1,
        series: runs.flatMap((r, p) => [
          { name: r.policy, colorIndex: p, points: over((run, i) => (run.result.timeline[i]!.allocated[resource] ?? 0) / total, r) },
          {
            name: `${r.policy} useful`,
            colorIndex: p,
            dashed: true,
            points: over((run, i) => (run.result.timeline[i]!.useful[resource] ?? 0) / total, r),
          },
        ]),
      }),
    );
  }

  charts.set(
    `${name}-queue.svg`,
    lineChart({
      title: `${name}: waiting jobs (solid) and pending pods (dashed)`,
      xLabel: `time (${unit.label})`,
      yLabel: 'count',
      series: runs.flatMap((r, p) => [
        { name: `${r.policy} jobs`, colorIndex: p, points: over((run, i) => run.result.timeline[i]!.waitingJobs, r) },
        ...(r.result.timeline.some((s) => s.pendingPods > 0)
          ? [{ name: `${r.policy} pods`, colorIndex: p, dashed: true, points: over((run, i) => run.result.timeline[i]!.pendingPods, r) }]
          : []),
      ]),
    }),
  );
  return charts;
}
