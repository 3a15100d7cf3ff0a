// Byte-exact Go `encoding/json` output for the few shapes TF_CONFIG needs. Go escapes <, > and & (HTML
// safety) and U+2028/U+2029, which JSON.stringify leaves alone; everything else matches.

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
