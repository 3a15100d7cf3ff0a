// Defensive readers of what the API returns: a TFJob with odd or missing status (written by another
// controller, an old CRD, a hand-made object) must show as what it is, never break a view. Nothing
// here trusts a field's type.

/** The value at `path` when it is a plain object, else an empty one. */
export function obj(value: unknown, ...path: readonly string[]): Readonly<Record<string, unknown>> {
  let v = value;
  for (const p of path) v = isRecord(v) ? v[p] : undefined;
  return isRecord(v) ? v : {};
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  // client-node's typed lists turn timestamps into Dates; watches hand them over as strings.
  if (v instanceof Date && Number.isFinite(v.getTime())) return v.toISOString();
  return undefined;
}

export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A string-to-string map (quota, usage), keeping only entries whose values are strings or numbers. */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(isRecord(v) ? v : {})) {
    const s = str(x);
    if (s !== undefined) out[k] = s;
  }
  return out;
}
