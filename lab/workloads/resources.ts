// Kubernetes quantities and resource arithmetic in the core's canonical units (cpu in millicores,
// memory in bytes, everything else in whole units), so workload models, the simulator and the
// scheduling core all compare the same numbers.
import type { Resources } from '../../src/scheduler/types.ts';

const SUFFIX_FACTOR: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};

const QUANTITY = /^([0-9]+(?:\.[0-9]+)?)([a-zA-Z]*)$/;

/** Parses a Kubernetes quantity ("500m", "32Gi", "4", 2.5) to its value in base units. */
export function parseQuantity(quantity: string | number): number {
  if (typeof quantity === 'number') {
    if (!Number.isFinite(quantity) || quantity < 0) throw new Error(`invalid quantity ${quantity}`);
    return quantity;
  }
  const match = QUANTITY.exec(quantity.trim());
  const factor = match === null ? undefined : SUFFIX_FACTOR[match[2] ?? ''];
  if (match === null || factor === undefined) throw new Error(`invalid quantity "${quantity}"`);
  return Number(match[1]) * factor;
}

/** A quantity of a named resource in the core's canonical unit (cpu → millicores). */
export function canonicalAmount(resource: string, quantity: string | number): number {
  const value = parseQuantity(quantity);
  return Math.round(resource === 'cpu' ? value * 1000 : value);
}

export function canonicalResources(quantities: Readonly<Record<string, string | number>>): Resources {
  const out: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(quantities)) out[name] = canonicalAmount(name, quantity);
  return out;
}

export function addResources(a: Resources, b: Resources, times = 1): Resources {
  const out: Record<string, number> = { ...a };
  for (const [name, amount] of Object.entries(b)) out[name] = (out[name] ?? 0) + amount * times;
  return out;
}

/** True when `request` fits into `free` for every resource it asks for (a missing key is zero). */
export function fitsIn(request: Resources, free: Resources): boolean {
  return Object.entries(request).every(([name, amount]) => amount <= (free[name] ?? 0));
}

/** Human form for messages: "2 cpu, 4Gi memory, 1 nvidia.com/gpu". */
export function formatResources(resources: Resources): string {
  return Object.entries(resources)
    .map(([name, amount]) => {
      if (name === 'cpu') return `${amount / 1000} cpu`;
      if (name === 'memory') return `${+(amount / 2 ** 30).toFixed(2)}Gi memory`;
      return `${amount} ${name}`;
    })
    .join(', ');
}
