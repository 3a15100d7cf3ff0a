// Kubernetes `metav1.Time` serialises as RFC 3339 in UTC with second precision.

export function formatTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Milliseconds since the epoch of a `metav1.Time` string, or undefined when absent or unparsable. */
export function parseTime(value: string | Date | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
