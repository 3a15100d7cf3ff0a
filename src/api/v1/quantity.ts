// Kubernetes resource quantities ("500m", "1.5", "32Gi", "1e3") in the scheduling core's canonical
// units: cpu in millicores, everything else in base units (bytes, devices). Rounded up, as the
// scheduler does, so a request is never under-counted.

const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** The quantity's value in base units (cores for cpu), or undefined when it is not a quantity. */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const value = Number(m[1]);
  const suffix = m[2];
  const scaled =
    m[3] !== undefined ? value * 10 ** Number(m[3]) : suffix === undefined ? value : value * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
  // "1e400" matches the syntax but is no amount anything can have: not a quantity.
  return Number.isFinite(scaled) ? scaled : undefined;
}

/** Canonical amount of `resource`: millicores for cpu, base units otherwise; undefined if unparsable. */
export function canonicalAmount(resource: string, quantity: string | number): number | undefined {
  const v = parseQuantity(quantity);
  if (v === undefined || v < 0) return undefined;
  return Math.ceil(resource === 'cpu' ? v * 1000 - 1e-9 : v - 1e-9);
}

/** Canonical amounts of a resource list; unparsable entries are skipped (the API server validated them). */
export function canonicalResources(list: Readonly<Record<string, string | number>> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(list ?? {})) {
    const v = canonicalAmount(name, q);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
