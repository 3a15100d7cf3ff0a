// Cluster: every node with its requested vs allocatable CPU, memory and GPU, and its pods as chips
// coloured by the TFJob they belong to (grey: pods of other workloads).
import { cores, fill, gib, h, jobColour } from '../dom.js';

function bar(label, used, total, fmt) {
  const share = total > 0 ? used / total : used > 0 ? 1 : 0;
  return h(
    `div.bar${share > 1 ? '.over' : ''}`,
    { title: `${label}: ${fmt(used)} requested of ${fmt(total)} allocatable` },
    h('span', { style: `width:${Math.min(100, share * 100).toFixed(1)}%` }),
    h('em', {}, `${label} ${fmt(used)} / ${fmt(total)}`),
  );
}

function chip(pod) {
  const pending = pod.phase !== 'Running';
  const title = `${pod.namespace}/${pod.name} (${pod.phase}) cpu ${cores(pod.requests.cpu)}${pod.job ? ` — TFJob ${pod.job}` : ''}`;
  return h(`span.chip${pod.job ? '' : '.foreign'}${pending ? '.pending' : ''}`, {
    title,
    'data-pod': `${pod.namespace}/${pod.name}`,
    'data-job': pod.job,
    style: pod.job ? `background:${jobColour(pod.job)}` : undefined,
  });
}

function nodeCard(node) {
  return h(
    'div.card',
    { 'data-node': node.name },
    h(
      'div.title',
      {},
      h('span', {}, node.name),
      h('span.muted', {}, node.ready ? (node.unschedulable ? 'cordoned' : 'Ready') : 'NotReady'),
    ),
    bar('cpu', node.requested.cpu, node.allocatable.cpu, cores),
    bar('mem', node.requested.memory, node.allocatable.memory, gib),
    node.allocatable.gpu > 0 || node.requested.gpu > 0 ? bar('gpu', node.requested.gpu, node.allocatable.gpu, cores) : null,
    h('div.chips', {}, node.pods.map(chip)),
  );
}

export function renderCluster(main, snapshot) {
  const jobs = new Map();
  for (const n of snapshot.nodes) for (const p of n.pods) if (p.job) jobs.set(p.job, (jobs.get(p.job) ?? 0) + 1);
  const total = snapshot.nodes.reduce(
    (s, n) => ({ cpu: s.cpu + n.allocatable.cpu, used: s.used + n.requested.cpu, pods: s.pods + n.pods.length }),
    { cpu: 0, used: 0, pods: 0 },
  );
  fill(
    main,
    h('h2', {}, `Cluster: ${snapshot.nodes.length} nodes, ${cores(total.used)} of ${cores(total.cpu)} CPU requested, ${total.pods} pods`),
    h(
      'div.legend',
      { 'data-testid': 'legend' },
      [...jobs.entries()]
        .sort()
        .map(([key, n]) =>
          h('span', {}, h('span.chip', { style: `background:${jobColour(key)}` }), h('a', { href: `#/job/${key}` }, `${key} (${n})`)),
        ),
      h('span', {}, h('span.chip.foreign'), 'other pods'),
    ),
    snapshot.nodes.length === 0
      ? h('div.empty', {}, snapshot.access.nodes?.scope === 'denied' ? 'You may not list nodes.' : 'No nodes.')
      : h('div.cards', { 'data-testid': 'nodes' }, snapshot.nodes.map(nodeCard)),
    snapshot.unscheduled.length === 0
      ? null
      : h('div', {}, h('h3', {}, `Not yet on a node (${snapshot.unscheduled.length})`), h('div.chips', {}, snapshot.unscheduled.map(chip))),
  );
}
