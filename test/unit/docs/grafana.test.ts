// The Grafana dashboard queries only metrics the operator really exports (names taken from the metric
// classes, not typed by hand), and shows every family the issue asks for.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { metricFamilies } from '../../../hack/gen-config-docs.ts';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { expr: string; datasource?: { uid: string } }[];
}

const dashboard = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config', 'grafana', 'tfjob-operator-dashboard.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string }[] };
};
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** Metric names in a PromQL expression: identifiers followed by `{` (every query here selects by label). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
}

async function exported(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const f of await metricFamilies()) {
    names.add(f.name);
    if (f.type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(f.name + suffix);
  }
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const m of await defaults.getMetricsAsJSON()) names.add(m.name);
  return names;
}

describe('config/grafana dashboard', () => {
  it('queries only exported metrics', async () => {
    const names = await exported();
    const used = exprs.flatMap(metricsIn);
    expect(used.length).toBeGreaterThan(40);
    expect(used.filter((n) => !names.has(n))).toEqual([]);
  });

  it("covers tf-operator's job counters, ours, reconcile, work queue and leader metrics", async () => {
    const used = new Set(exprs.flatMap(metricsIn).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    const ours = (await metricFamilies())
      .map((f) => f.name)
      .filter((n) => n.startsWith('training_operator_') || n.startsWith('tfjob_operator_'));
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.filter((n) => !used.has(n))).toEqual([]);
    for (const n of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_retries_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'leader_election_master_status',
      'rest_client_requests_total',
    ]) {
      expect(used.has(n), n).toBe(true);
    }
  });

  it('is a well-formed dashboard: unique panel ids, a data source variable, panels inside the grid', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.uid).toBe('tfjob-operator');
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'job', 'namespace']);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      // Every query is scoped to the operator's scrape job, so other controllers' series never mix in.
      for (const t of p.targets ?? []) expect(t.expr, p.title).toContain('job=~"$job"');
    }
  });
});
