// JSON as the reconciler needs it: byte-exact Go `encoding/json` output for the few shapes TF_CONFIG
// needs (Go escapes <, > and & (HTML safety) and U+2028/U+2029, which JSON.stringify leaves alone;
// everything else matches), and structural equality ignoring key order and `undefined` members, to
// decide whether a status write is needed (every write triggers another reconcile).

export function goJsonString(value: string): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** A `[]string`; Go writes a nil slice as `null`. */
export function goJsonStringArray(values: readonly string[] | undefined): string {
  return values === undefined ? 'null' : `[${values.map(goJsonString).join(',')}]`;
}

/** A `map[K]V` with already-serialised values: Go sorts the keys by their string form. */
export function goJsonMap(entries: ReadonlyMap<string, string>): string {
  const keys = [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${goJsonString(k)}:${entries.get(k) ?? 'null'}`).join(',')}}`;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const key of keys) {
    if (!jsonEqual(ra[key], rb[key])) return false;
  }
  return true;
}
