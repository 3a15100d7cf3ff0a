// Small DOM helpers. Text always goes in as text nodes (never HTML): names, reasons and messages come
// from the cluster and may hold anything.

/** h('td.wrap', { title: 'x' }, 'text', child) */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length > 0) el.className = classes.join(' ');
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'style') el.setAttribute('style', v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces `el`'s children, leaving out the absent ones (replaceChildren would print `null`). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
}

export function badge(text) {
  return text ? h(`span.badge.${String(text).replace(/[^A-Za-z]/g, '')}`, {}, text) : '-';
}

export function jobLink(key) {
  const [ns, name] = key.split('/');
  return h('a', { href: `#/job/${encodeURIComponent(ns)}/${encodeURIComponent(name)}` }, key);
}

/** A stable colour per job key, so the same job has the same colour in every view. */
export function jobColour(key) {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return `hsl(${Math.abs(hash) % 360} 65% 55%)`;
}

export function cores(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/\.?0+$/, '');
}

export function gib(bytes) {
  return `${(bytes / 2 ** 30).toFixed(bytes >= 10 * 2 ** 30 ? 0 : 1)}Gi`;
}

export function ago(iso) {
  if (!iso) return '-';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return iso;
  if (s < 0) return `in ${fmtDuration(-s)}`;
  return `${fmtDuration(s)} ago`;
}

export function fmtDuration(s) {
  if (s < 90) return `${s}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  if (s < 172800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

export function workersText(w) {
  const f = (v) => (v === undefined || v === null ? '?' : v);
  return w.current === undefined && w.min === undefined && w.max === undefined ? '-' : `${f(w.current)}/${f(w.min)}/${f(w.max)}`;
}
