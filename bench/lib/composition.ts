// What the operator's cached objects are made of: JSON bytes per field path (two levels, and the
// fields of list elements such as spec.containers[].env), summed over every object of a kind as the
// API returns it, and after the cache transform. JSON bytes are not V8 heap bytes, but they rank the
// fields the same way and show which ones are worth dropping from a cache.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClients } from '../../src/runtime/kube-client.ts';

export interface KindComposition {
  readonly objects: number;
  /** Mean JSON bytes per object as the API returns it, and after each cache transform. */
  readonly meanBytes: Readonly<Record<string, number>>;
  /** Share of the API form's bytes per field path, largest first (top 25). */
  readonly byPath: readonly (readonly [string, number])[];
}

export type Composition = Record<string, KindComposition>;

function size(v: unknown): number {
  return v === undefined ? 0 : JSON.stringify(v).length;
}

function addPaths(obj: unknown, acc: Map<string, number>): void {
  if (obj === null || typeof obj !== 'object') return;
  for (const [k1, v1] of Object.entries(obj)) {
    if (v1 === null || typeof v1 !== 'object' || Array.isArray(v1)) {
      acc.set(k1, (acc.get(k1) ?? 0) + size(v1) + k1.length + 3);
      continue;
    }
    for (const [k2, v2] of Object.entries(v1 as Record<string, unknown>)) {
      const p = `${k1}.${k2}`;
      if (Array.isArray(v2) && v2.some((e) => e !== null && typeof e === 'object')) {
        for (const e of v2) {
          for (const [k3, v3] of Object.entries(e as Record<string, unknown>)) {
            const q = `${p}[].${k3}`;
            acc.set(q, (acc.get(q) ?? 0) + size(v3) + k3.length + 3);
          }
        }
      } else {
        acc.set(p, (acc.get(p) ?? 0) + size(v2) + k2.length + 3);
      }
    }
  }
}

async function listAll(clients: KubeClients, path: string): Promise<KubernetesObject[]> {
  const out: KubernetesObject[] = [];
  let cont: string | undefined;
  do {
    const page = await clients.request<{ items: KubernetesObject[]; metadata?: { continue?: string } }>(
      'GET',
      `${path}?limit=2000${cont === undefined ? '' : `&continue=${encodeURIComponent(cont)}`}`,
    );
    out.push(...page.items);
    cont = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
  } while (cont !== undefined);
  return out;
}

/** Composition of a list of objects; `transforms` are the cache transforms to compare (name → fn). */
export function composeKind(
  objects: readonly KubernetesObject[],
  transforms: Readonly<Record<string, (o: KubernetesObject) => KubernetesObject>>,
): KindComposition {
  const acc = new Map<string, number>();
  let apiBytes = 0;
  const transformed: Record<string, number> = {};
  for (const o of objects) {
    apiBytes += size(o);
    addPaths(o, acc);
    for (const [name, fn] of Object.entries(transforms)) transformed[name] = (transformed[name] ?? 0) + size(fn(o));
  }
  const n = Math.max(1, objects.length);
  return {
    objects: objects.length,
    meanBytes: {
      api: Math.round(apiBytes / n),
      ...Object.fromEntries(Object.entries(transformed).map(([k, v]) => [k, Math.round(v / n)])),
    },
    byPath: [...acc]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([p, b]) => [p, Math.round((b / Math.max(1, apiBytes)) * 1000) / 1000] as const),
  };
}

/**
 * Pods, services and TFJobs of a namespace, with the cache transforms of the given module (the
 * operator's informers.ts of the revision under test exports `stripForCache` and, once pods are
 * reduced, `cacheTransforms`).
 */
export async function composition(
  clients: KubeClients,
  namespace: string,
  transforms: Readonly<Record<string, Readonly<Record<string, (o: KubernetesObject) => KubernetesObject>>>> = {},
): Promise<Composition> {
  const kinds: Record<string, string> = {
    pods: `/api/v1/namespaces/${namespace}/pods`,
    services: `/api/v1/namespaces/${namespace}/services`,
    tfjobs: `/apis/kubeflow.org/v1/namespaces/${namespace}/tfjobs`,
  };
  const out: Composition = {};
  for (const [kind, path] of Object.entries(kinds)) {
    // One kind at a time: 50,000 pods as JSON are a few hundred MB in the driver.
    out[kind] = composeKind(await listAll(clients, path), transforms[kind] ?? {});
  }
  return out;
}
