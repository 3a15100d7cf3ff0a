// One job: its metric and step rate, its workers and CPU over time, and every scheduling decision and
// event on the same time axis; then the events, its pods and where they run, its TF_CONFIG contract.
import { ago, badge, cores, fill, h, workersText } from '../dom.js';

/** Decisions get a colour of their own on the timeline; other events are grey. */
const DECISION_COLOURS = {
  Admitted: '#1f9d55',
  ScaledOut: '#2d6cdf',
  Preempted: '#dc2626',
  ScaledIn: '#dc2626',
  Suspended: '#d97706',
  Resumed: '#1f9d55',
  NodeLost: '#7c3aed',
  TargetUnreachable: '#d97706',
  TargetMetricReached: '#1f9d55',
};
const DECISIONS = new Set(Object.keys(DECISION_COLOURS));

function markerTimes(events) {
  return events.map((e) => ({ t: Date.parse(e.time) / 1000, reason: e.reason })).filter((m) => Number.isFinite(m.t));
}

function drawMarkers(u, state) {
  const ctx = u.ctx;
  const { top, height } = u.bbox;
  ctx.save();
  ctx.font = `${10 * devicePixelRatio}px system-ui`;
  for (const m of state.markers) {
    const x = Math.round(u.valToPos(m.t, 'x', true));
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
    const colour = DECISION_COLOURS[m.reason] ?? '#9aa5b8';
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = DECISIONS.has(m.reason) ? 2 : 1;
    ctx.setLineDash(DECISIONS.has(m.reason) ? [] : [3, 3]);
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    if (DECISIONS.has(m.reason)) ctx.fillText(m.reason, x + 3, top + 12 * devicePixelRatio);
  }
  ctx.restore();
}

function chartData(detail) {
  const s = detail.samples;
  const now = Date.now() / 1000;
  const last = s.at(-1);
  // The last reading holds until now: extend it so the lines reach the present.
  const points = last ? [...s, { ...last, t: Math.max(now * 1000, last.t) }] : [];
  const col = (f) => points.map((p) => (p[f] === undefined || p[f] === null ? null : p[f]));
  return {
    progress: [points.map((p) => p.t / 1000), col('metric'), col('stepRate')],
    resources: [points.map((p) => p.t / 1000), col('workers'), col('cpu')],
  };
}

function xRange(state) {
  return (_u, min, max) => {
    const ts = state.markers.map((m) => m.t);
    const lo = Math.min(min ?? Infinity, ...ts);
    const hi = Math.max(max ?? -Infinity, Date.now() / 1000);
    return Number.isFinite(lo) ? [lo - 5, hi + 5] : [hi - 60, hi];
  };
}

function makeChart(el, state, title, series, data) {
  const width = Math.max(400, el.clientWidth - 16);
  const opts = {
    title,
    width,
    height: 220,
    cursor: { sync: { key: 'job' } },
    scales: { x: { time: true, range: xRange(state) } },
    series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, scale: s.scale, spanGaps: true, paths: s.paths }))],
    axes: [
      {},
      { scale: series[0].scale, label: series[0].label },
      { scale: series[1].scale, label: series[1].label, side: 1, grid: { show: false } },
    ],
    hooks: { draw: [(u) => drawMarkers(u, state)] },
  };
  return new uPlot(opts, data, el);
}

function stats(row, detail) {
  const last = detail.samples.at(-1);
  const stat = (label, value, testid) => h('div', { 'data-testid': testid }, h('b', {}, value), label);
  return h(
    'div.stats',
    {},
    stat('state', badge(row.state), 'state'),
    stat('queue', row.queue ? h('span', {}, badge(row.queue), row.position ? ` #${row.position}` : '') : '-'),
    stat('weight', row.weight === undefined ? '-' : Number(row.weight).toFixed(3)),
    stat('workers c/min/max', workersText(row.workers)),
    stat('live workers', last ? last.workers : '-', 'workers-now'),
    stat('CPU of its pods', last ? cores(last.cpu) : '-'),
    stat('training', row.phase ? badge(row.phase) : '-'),
    stat(row.metricName ?? 'metric', row.metric ?? '-'),
    stat('plan', row.fractionDone === undefined ? '-' : `${Math.round(row.fractionDone * 100)}%`),
    stat('ETA', row.eta ? ago(row.eta) : '-'),
    stat(
      row.qoeTarget ? `QoE (${row.qoeTarget})` : 'QoE',
      row.qoeClass ? h('span', {}, badge(row.qoeClass), ` ${row.measuredRate ?? '?'} / ${row.requiredRate ?? '?'} steps/s`) : '-',
    ),
  );
}

function eventsTable(events) {
  if (events.length === 0) return h('div.muted', {}, 'No events (the API server keeps them an hour by default).');
  return h(
    'table',
    { 'data-testid': 'events' },
    h(
      'tr',
      {},
      ['time', 'reason', 'count', 'message'].map((c) => h('th', {}, c)),
    ),
    [...events]
      .reverse()
      .map((e) =>
        h(
          'tr',
          { class: e.type, 'data-reason': e.reason },
          h('td', { title: e.time }, ago(e.time)),
          h('td.reason', {}, e.reason),
          h('td', {}, e.count),
          h('td.wrap', {}, e.message),
        ),
      ),
  );
}

function podsTable(pods) {
  if (pods.length === 0) return h('div.muted', {}, 'No pods.');
  return h(
    'table',
    { 'data-testid': 'pods' },
    h(
      'tr',
      {},
      ['pod', 'replica', 'node', 'phase', 'cpu request / limit', 'memory'].map((c) => h('th', {}, c)),
    ),
    pods.map((p) =>
      h(
        'tr',
        { 'data-pod': p.name },
        h('td', {}, p.name),
        h('td', {}, p.replicaType ?? '-'),
        h('td', {}, p.node ?? 'not placed'),
        h('td', {}, p.deleting ? `${p.phase} (terminating)` : p.phase),
        h('td', {}, `${cores(p.requests.cpu)} / ${p.limits.cpu ? cores(p.limits.cpu) : '-'}`),
        h('td', {}, `${(p.requests.memory / 2 ** 30).toFixed(1)}Gi`),
      ),
    ),
  );
}

function tfConfigs(tfConfig) {
  const entries = Object.entries(tfConfig);
  if (entries.length === 0) return h('div.muted', {}, 'No pod carries a TF_CONFIG now.');
  return h(
    'div',
    { 'data-testid': 'tf-config' },
    entries.map(([replica, json], i) => {
      let text = json;
      try {
        text = JSON.stringify(JSON.parse(json), null, 2);
      } catch {
        // Shown as it is: the contract is what the pod has, even if it is not JSON.
      }
      return h('details', { open: i === 0 }, h('summary', {}, replica), h('pre', {}, text));
    }),
  );
}

export function renderJob(main, detail, route, viewState) {
  const key = `${route.namespace}/${route.name}`;
  if (detail === undefined) {
    main.replaceChildren(h('div.empty', { 'data-testid': 'no-job' }, `No TFJob ${key}, or you may not see it.`));
    viewState.job = undefined;
    return;
  }
  if (viewState.job === undefined || !main.contains(viewState.job.charts)) {
    const charts = h(
      'div.grid2',
      {},
      h('div.chart', { 'data-testid': 'progress-chart' }),
      h('div.chart', { 'data-testid': 'resources-chart' }),
    );
    const rest = h('div');
    const head = h('div');
    main.replaceChildren(head, charts, rest);
    viewState.job = { head, charts, rest, markers: [] };
  }
  const state = viewState.job;
  state.markers = markerTimes(detail.events);
  const data = chartData(detail);
  if (state.progress === undefined) {
    const [p, r] = state.charts.children;
    state.progress = makeChart(
      p,
      state,
      'Training: metric and step rate',
      [
        { label: detail.row.metricName ?? 'metric', stroke: '#2d6cdf', scale: 'metric' },
        { label: 'steps/s', stroke: '#1f9d55', scale: 'rate' },
      ],
      data.progress,
    );
    state.resources = makeChart(
      r,
      state,
      'Workers and CPU',
      [
        { label: 'live workers', stroke: '#7c3aed', scale: 'workers', paths: uPlot.paths.stepped({ align: 1 }) },
        { label: 'CPU cores', stroke: '#d97706', scale: 'cpu', paths: uPlot.paths.stepped({ align: 1 }) },
      ],
      data.resources,
    );
  } else {
    state.progress.setData(data.progress);
    state.resources.setData(data.resources);
  }
  const row = detail.row;
  fill(
    state.head,
    h('h2', {}, `TFJob ${key}`),
    row.message ? h('div.note', { 'data-testid': 'scheduling-message' }, `${row.reason ?? ''}: ${row.message}`) : null,
    stats(row, detail),
  );
  const since = detail.samplesSince
    ? `samples since ${new Date(detail.samplesSince).toLocaleTimeString()} (the dashboard's memory; events come from the cluster)`
    : '';
  state.rest.replaceChildren(
    h('div.muted', {}, since),
    h('h3', {}, `Decisions and events (${detail.events.length})`),
    eventsTable(detail.events),
    h('h3', {}, `Pods (${detail.pods.length})`),
    podsTable(detail.pods),
    h('h3', {}, 'TF_CONFIG (as set on each pod)'),
    tfConfigs(detail.tfConfig),
    h('details', {}, h('summary', {}, 'status as stored'), h('pre', {}, JSON.stringify(detail.status, null, 2))),
  );
}
