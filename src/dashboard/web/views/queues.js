// Queues: each ClusterQueue's quota, usage and borrowing, and its waiting line in order with each
// job's reason; then the LocalQueues that point at them.
import { fill, h, jobLink } from '../dom.js';

function resources(map) {
  const entries = Object.entries(map);
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k} ${v}`).join(', ');
}

function usageVsQuota(cq) {
  return Object.keys(cq.quota).length === 0
    ? '-'
    : Object.entries(cq.quota)
        .map(([r, q]) => `${r} ${cq.usage[r] ?? '0'}/${q}`)
        .join(', ');
}

function clusterQueue(cq) {
  return h(
    'div.card',
    { 'data-cq': cq.name, style: 'margin-bottom:10px' },
    h('div.title', {}, h('span', {}, `ClusterQueue ${cq.name}`), h('span.muted', {}, cq.cohort ? `cohort ${cq.cohort}` : 'no cohort')),
    h(
      'div.stats',
      {},
      h('div', {}, h('b', {}, cq.pending), 'waiting'),
      h('div', {}, h('b', {}, cq.admitted), 'admitted'),
      h('div', {}, h('b', {}, usageVsQuota(cq)), 'usage / quota'),
      h('div', {}, h('b', {}, resources(cq.borrowed)), 'borrowed'),
      h('div', {}, h('b', {}, cq.active), 'active'),
    ),
    cq.heads.length === 0
      ? h('div.muted', {}, 'No TFJob waits here.')
      : h(
          'table',
          {},
          h('tr', {}, h('th', {}, '#'), h('th', {}, 'TFJob'), h('th', {}, 'why it waits')),
          cq.heads.map((hd) =>
            h('tr', { 'data-waiting': hd.job }, h('td', {}, hd.position), h('td', {}, jobLink(hd.job)), h('td.wrap', {}, hd.reason)),
          ),
        ),
    cq.pending > cq.heads.length ? h('div.muted', {}, `… and ${cq.pending - cq.heads.length} more`) : null,
  );
}

export function renderQueues(main, snapshot) {
  const denied = snapshot.access.clusterqueues?.scope === 'denied';
  const waitingJobs = snapshot.jobs.filter((j) => j.queue === 'Waiting');
  fill(
    main,
    h('h2', {}, `Queues: ${snapshot.clusterQueues.length} ClusterQueues, ${snapshot.localQueues.length} LocalQueues`),
    snapshot.clusterQueues.length === 0
      ? h(
          'div.empty',
          { 'data-testid': 'no-queues' },
          denied ? snapshot.access.clusterqueues.why : 'No ClusterQueues: every TFJob waits in one global line.',
        )
      : h('div', { 'data-testid': 'clusterqueues' }, snapshot.clusterQueues.map(clusterQueue)),
    snapshot.localQueues.length === 0
      ? null
      : h(
          'div',
          {},
          h('h3', {}, 'LocalQueues'),
          h(
            'table',
            {},
            h(
              'tr',
              {},
              ['namespace', 'LocalQueue', 'ClusterQueue', 'waiting', 'admitted'].map((c) => h('th', {}, c)),
            ),
            snapshot.localQueues.map((lq) =>
              h(
                'tr',
                {},
                [lq.namespace, lq.name, lq.clusterQueue, lq.pending, lq.admitted].map((c) => h('td', {}, c)),
              ),
            ),
          ),
        ),
    h('h3', {}, `Waiting TFJobs you can see (${waitingJobs.length})`),
    waitingJobs.length === 0
      ? h('div.muted', {}, 'None.')
      : h(
          'table',
          { 'data-testid': 'waiting-jobs' },
          h(
            'tr',
            {},
            ['TFJob', 'ClusterQueue', '#', 'weight', 'reason', 'message'].map((c) => h('th', {}, c)),
          ),
          waitingJobs.map((j) =>
            h(
              'tr',
              {},
              h('td', {}, jobLink(`${j.namespace}/${j.name}`)),
              h('td', {}, j.clusterQueue ?? '-'),
              h('td', {}, j.position ?? '-'),
              h('td', {}, j.weight ?? '-'),
              h('td', {}, j.reason ?? '-'),
              h('td.wrap', {}, j.message ?? ''),
            ),
          ),
        ),
  );
}
