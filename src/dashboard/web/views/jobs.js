// Jobs: one row per TFJob, virtualised (only the rows in view are in the DOM), so thousands of jobs
// render and scroll. A filter matches namespace, name, state, queue and reason.
import { ago, badge, h, jobLink, workersText } from '../dom.js';

const ROW_HEIGHT = 28;
const OVERSCAN = 10;
const COLUMNS = [
  'TFJob',
  'state',
  'queue',
  '#',
  'weight',
  'workers c/min/max',
  'phase',
  'metric',
  'plan',
  'ETA',
  'QoE: measured / required',
];

function qoe(j) {
  if (!j.qoeClass) return '-';
  const rates = j.measuredRate || j.requiredRate ? ` ${j.measuredRate ?? '?'} / ${j.requiredRate ?? '?'} steps/s` : '';
  return h('span', { title: j.qoeTarget ?? '' }, badge(j.qoeClass), rates);
}

function row(j, top) {
  const key = `${j.namespace}/${j.name}`;
  return h(
    'div.vrow',
    { style: `position:absolute;left:0;right:0;top:${top}px`, 'data-job': key, title: j.message ?? '' },
    h('span', {}, jobLink(key)),
    h('span', {}, badge(j.state)),
    h('span', {}, j.queue ? badge(j.queue) : '-'),
    h('span', {}, j.position ?? '-'),
    h('span', {}, j.weight === undefined ? '-' : Number(j.weight).toFixed(3)),
    h('span', {}, workersText(j.workers)),
    h('span', {}, j.phase ? badge(j.phase) : '-'),
    h('span', { title: j.metricName ?? '' }, j.metric === undefined ? '-' : `${j.metricName ?? ''} ${j.metric}`),
    h('span', {}, j.fractionDone === undefined ? '-' : `${Math.round(j.fractionDone * 100)}%`),
    h('span', {}, j.eta ? ago(j.eta) : '-'),
    h('span', {}, qoe(j)),
  );
}

function matches(j, text) {
  if (text === '') return true;
  return [j.namespace, j.name, j.state, j.queue, j.reason, j.clusterQueue].some((v) => v && v.toLowerCase().includes(text));
}

function drawRows(state) {
  const { scroller, body, rows } = state;
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW_HEIGHT) + OVERSCAN);
  body.style.height = `${rows.length * ROW_HEIGHT}px`;
  body.replaceChildren(...rows.slice(first, last).map((j, i) => row(j, (first + i) * ROW_HEIGHT)));
}

export function renderJobs(main, snapshot, viewState) {
  if (viewState.jobs === undefined || !main.contains(viewState.jobs.scroller)) {
    const filter = h('input', { type: 'search', placeholder: 'filter: namespace, name, state, queue, reason', 'data-testid': 'filter' });
    const count = h('span.muted', { 'data-testid': 'job-count' });
    const body = h('div', { style: 'position:relative' });
    const scroller = h(
      'div.vscroll',
      { 'data-testid': 'jobs' },
      h(
        'div.vrow.vhead',
        {},
        COLUMNS.map((c) => h('span', {}, c)),
      ),
      body,
    );
    viewState.jobs = { filter, count, body, scroller, rows: [], all: [] };
    const state = viewState.jobs;
    filter.addEventListener('input', () => {
      state.rows = state.all.filter((j) => matches(j, filter.value.trim().toLowerCase()));
      count.textContent = `${state.rows.length} of ${state.all.length} TFJobs`;
      drawRows(state);
    });
    scroller.addEventListener('scroll', () => requestAnimationFrame(() => drawRows(state)));
    main.replaceChildren(h('div.toolbar', {}, h('h2', { style: 'margin:0' }, 'TFJobs'), filter, count), scroller);
  }
  const state = viewState.jobs;
  state.all = snapshot.jobs;
  state.rows = snapshot.jobs.filter((j) => matches(j, state.filter.value.trim().toLowerCase()));
  state.count.textContent = `${state.rows.length} of ${state.all.length} TFJobs`;
  if (snapshot.jobs.length === 0) {
    state.body.replaceChildren(h('div.empty', { 'data-testid': 'no-jobs' }, 'No TFJobs you may see.'));
    state.body.style.height = 'auto';
    return;
  }
  drawRows(state);
}
