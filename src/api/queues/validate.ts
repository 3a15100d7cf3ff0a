// A ClusterQueue as the scheduling core needs it (`QueueSpec`), or every reason it cannot be used,
// each naming its field. The CRD rejects most of these at admission already; this is the check for
// objects that reached the API some other way (an older CRD, a direct etcd write), so a bad queue is
// reported in its status and never crashes a pass.

import type { QueueSpec } from '../../scheduler/index.ts';
import { canonicalAmount } from '../v1/quantity.ts';
import { parseNamespaceSelector, type ParsedSelector } from './namespace-selector.ts';
import type { ClusterQueue, ResourceQuantities } from './types.ts';

/** `namespaceSelector` stays outside the core's `QueueSpec`: it decides which jobs reach the queue at all. */
export type QueueParse =
  | { readonly ok: true; readonly spec: QueueSpec; readonly namespaceSelector?: ParsedSelector }
  | { readonly ok: false; readonly errors: readonly string[] };

function amounts(field: string, list: ResourceQuantities | undefined, errors: string[]): Record<string, number> | undefined {
  if (list === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(list)) {
    const v = canonicalAmount(name, String(q));
    if (v === undefined || !Number.isFinite(v) || v < 0)
      errors.push(`spec.${field}.${name}: ${JSON.stringify(q)} is not a non-negative quantity`);
    else out[name] = v;
  }
  return out;
}

export function parseClusterQueue(cq: ClusterQueue): QueueParse {
  const errors: string[] = [];
  const name = cq.metadata?.name ?? '';
  const spec = cq.spec ?? {};
  const nominalQuota = amounts('nominalQuota', spec.nominalQuota, errors) ?? {};
  const borrowingLimit = amounts('borrowingLimit', spec.borrowingLimit, errors);
  const lendingLimit = amounts('lendingLimit', spec.lendingLimit, errors);
  const cohort = spec.cohort === undefined || spec.cohort === '' ? undefined : spec.cohort;
  if (cohort === undefined && borrowingLimit !== undefined)
    errors.push('spec.borrowingLimit: needs spec.cohort (a queue without a cohort cannot borrow)');
  if (cohort === undefined && lendingLimit !== undefined)
    errors.push('spec.lendingLimit: needs spec.cohort (a queue without a cohort lends nothing)');
  for (const [field, list] of [
    ['borrowingLimit', borrowingLimit],
    ['lendingLimit', lendingLimit],
  ] as const) {
    for (const r of Object.keys(list ?? {})) {
      if (!(r in nominalQuota)) errors.push(`spec.${field}.${r}: ${r} has no nominal quota`);
    }
  }
  for (const [r, v] of Object.entries(lendingLimit ?? {})) {
    if (r in nominalQuota && v > nominalQuota[r]!) errors.push(`spec.lendingLimit.${r}: more than the nominal quota`);
  }
  const rawWeight = spec.fairSharing?.weight;
  const weight = rawWeight === undefined ? 1 : Number(rawWeight);
  if (!Number.isFinite(weight) || weight <= 0)
    errors.push(`spec.fairSharing.weight: ${JSON.stringify(rawWeight)} is not a positive number`);
  const selector = parseNamespaceSelector(spec.namespaceSelector);
  errors.push(...selector.errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    ...(selector.selector === undefined ? {} : { namespaceSelector: selector.selector }),
    spec: {
      name,
      ...(cohort === undefined ? {} : { cohort }),
      nominalQuota,
      ...(borrowingLimit === undefined ? {} : { borrowingLimit }),
      ...(lendingLimit === undefined ? {} : { lendingLimit }),
      weight,
    },
  };
}
