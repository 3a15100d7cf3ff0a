// The page: a hash router over four views, fed by the server's snapshot and job detail, refreshed
// when the server's event stream says something changed. No framework: each view renders into <main>.
import { renderCluster } from './views/cluster.js';
import { renderQueues } from './views/queues.js';
import { renderJobs } from './views/jobs.js';
import { renderJob } from './views/job.js';
import { h } from './dom.js';

const main = document.getElementById('view');
const live = document.getElementById('live');
let route = parseRoute();
let inFlight = false;
let again = false;
/** State a view keeps across refreshes (scroll position, filter, charts). */
const viewState = {};

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const view = ['cluster', 'queues', 'jobs', 'job'].includes(parts[0]) ? parts[0] : 'jobs';
  return { view, namespace: parts[1], name: parts[2] };
}

async function getJson(path) {
  const res = await fetch(path, { cache: 'no-store' });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

function showNotes(snapshot) {
  const notes = document.getElementById('notes');
  notes.replaceChildren();
  for (const [kind, a] of Object.entries(snapshot.access)) {
    if (a.scope === 'denied') notes.append(h('div.note', {}, `${kind}: ${a.why}`));
  }
  document.getElementById('user').textContent = snapshot.user;
}

async function refresh() {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    const r = route;
    if (r.view === 'job') {
      const detail = await getJson(`/api/job/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`);
      if (r === route) renderJob(main, detail, r, viewState);
    } else {
      const snapshot = await getJson('/api/snapshot');
      if (r !== route) return;
      showNotes(snapshot);
      if (r.view === 'cluster') renderCluster(main, snapshot, viewState);
      else if (r.view === 'queues') renderQueues(main, snapshot, viewState);
      else renderJobs(main, snapshot, viewState);
    }
    document.body.dataset.view = r.view;
    document.body.dataset.rendered = String(Date.now());
  } catch (err) {
    main.replaceChildren(h('div.note', {}, `Could not load: ${err.message}`));
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

function navigate() {
  route = parseRoute();
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === route.view || (route.view === 'job' && a.dataset.nav === 'jobs'));
  viewState.jobs = undefined;
  viewState.job = undefined;
  main.replaceChildren(h('div.empty', {}, 'loading…'));
  void refresh();
}

/** The change stream; the browser reconnects by itself, and after a refusal we open a new one. */
function connect() {
  const es = new EventSource('/api/stream');
  live.dataset.state = 'connecting';
  live.textContent = 'connecting';
  es.onopen = () => {
    live.dataset.state = 'live';
    live.textContent = 'live';
    void refresh();
  };
  es.onmessage = () => void refresh();
  es.onerror = () => {
    live.dataset.state = 'reconnecting';
    live.textContent = 'reconnecting';
    if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  };
}

window.addEventListener('hashchange', navigate);
navigate();
connect();
