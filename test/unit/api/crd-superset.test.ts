// Structural proof that our CRD schema is a superset of v1.8.1's: every upstream node exists in ours
// with the same type, format and Kubernetes extensions, and ours adds constraints only at the listed
// places (each one a tf-operator webhook check or a deliberate, documented rejection).

import { describe, expect, it } from 'vitest';
import type { Json } from './helpers/fixtures.ts';
import { OUR_CRD_PATH, UPSTREAM_CRD_PATH, crdSchema } from './helpers/fixtures.ts';

/** Keys that can reject a value; `description` & co. are free to differ. */
const CONSTRAINT_KEYS = [
  'required',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'x-kubernetes-validations',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
] as const;
const SAME_KEYS = [
  'type',
  'format',
  'nullable',
  'default',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
] as const;

/** Path → constraint keys we add or change there. `*` = any map value, `[]` = any list item. */
const ALLOWED_TIGHTENINGS: Readonly<Record<string, readonly string[]>> = {
  '': ['required', 'x-kubernetes-validations'],
  '.spec': ['x-kubernetes-validations'],
  '.spec.successPolicy': ['enum'],
  '.spec.runPolicy': ['x-kubernetes-validations'],
  '.spec.runPolicy.cleanPodPolicy': ['enum'],
  '.spec.tfReplicaSpecs': ['minProperties', 'maxProperties', 'x-kubernetes-validations'],
  '.spec.tfReplicaSpecs.*': ['x-kubernetes-validations'],
  '.spec.tfReplicaSpecs.*.replicas': ['minimum'],
  '.spec.tfReplicaSpecs.*.restartPolicy': ['enum'],
  '.spec.tfReplicaSpecs.*.template.spec.containers[]': ['x-kubernetes-validations'],
};

const EXPECTED_NEW_FIELDS = [
  '.metadata.name',
  '.spec.elasticPolicy',
  '.spec.qoe',
  '.spec.runPolicy.managedBy',
  '.status.givenUpWorkerSlots',
  '.status.migration',
  '.status.podRecreations',
  '.status.progress',
  '.status.qoe',
  '.status.scheduling',
  '.status.verticalResize',
];

function obj(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

interface Comparison {
  missing: string[];
  changed: string[];
  tightened: Map<string, string[]>;
  added: string[];
}

function compare(up: Json, ours: Json, path: string, out: Comparison): void {
  for (const key of SAME_KEYS) {
    if (JSON.stringify(up[key]) !== JSON.stringify(ours[key])) out.changed.push(`${path} ${key}`);
  }
  for (const key of CONSTRAINT_KEYS) {
    if (JSON.stringify(up[key]) !== JSON.stringify(ours[key])) out.tightened.set(path, [...(out.tightened.get(path) ?? []), key]);
  }
  const upProps = obj(up.properties) ?? {};
  const ourProps = obj(ours.properties) ?? {};
  for (const [name, upChild] of Object.entries(upProps)) {
    const ourChild = obj(ourProps[name]);
    if (!ourChild) out.missing.push(`${path}.${name}`);
    else compare(obj(upChild) ?? {}, ourChild, `${path}.${name}`, out);
  }
  for (const name of Object.keys(ourProps)) if (!(name in upProps)) out.added.push(`${path}.${name}`);
  const upAdditional = obj(up.additionalProperties);
  if (upAdditional) {
    const ourAdditional = obj(ours.additionalProperties);
    if (!ourAdditional) out.missing.push(`${path}.*`);
    else compare(upAdditional, ourAdditional, `${path}.*`, out);
  }
  const upItems = obj(up.items);
  if (upItems) {
    const ourItems = obj(ours.items);
    if (!ourItems) out.missing.push(`${path}[]`);
    else compare(upItems, ourItems, `${path}[]`, out);
  }
}

describe('our CRD schema is a superset of v1.8.1', () => {
  const comparison: Comparison = { missing: [], changed: [], tightened: new Map(), added: [] };
  compare(crdSchema(UPSTREAM_CRD_PATH), crdSchema(OUR_CRD_PATH), '', comparison);

  it('keeps every upstream field (nothing newly pruned)', () => {
    expect(comparison.missing).toEqual([]);
  });

  it('keeps types, formats, defaults and Kubernetes extensions', () => {
    expect(comparison.changed).toEqual([]);
  });

  it('adds constraints only where allowed', () => {
    expect(Object.fromEntries(comparison.tightened)).toEqual(ALLOWED_TIGHTENINGS);
  });

  it('keeps the upstream queue immutability rule', () => {
    const queue = obj(
      obj(
        obj(obj(obj(obj(obj(obj(crdSchema(OUR_CRD_PATH).properties)?.spec)?.properties)?.runPolicy)?.properties)?.schedulingPolicy)
          ?.properties,
      )?.queue,
    );
    expect(queue?.['x-kubernetes-validations']).toEqual([
      { message: 'spec.runPolicy.schedulingPolicy.queue is immutable', rule: 'self == oldSelf' },
    ]);
  });

  it('adds exactly the documented new fields', () => {
    expect(comparison.added.sort()).toEqual(EXPECTED_NEW_FIELDS);
  });

  it('has no preserve-unknown-fields in the new status blocks (structural, pruned)', () => {
    const status = obj(obj(obj(crdSchema(OUR_CRD_PATH).properties)?.status)?.properties);
    for (const block of ['scheduling', 'progress', 'qoe', 'verticalResize']) {
      expect(status?.[block]).toBeDefined();
      expect(JSON.stringify(status?.[block])).not.toContain('preserve-unknown-fields');
    }
  });

  it('every enum still accepts all values tf-operator gives a meaning to', () => {
    const spec = obj(obj(crdSchema(OUR_CRD_PATH).properties)?.spec);
    const props = obj(spec?.properties);
    const replica = obj(obj(obj(props?.tfReplicaSpecs)?.additionalProperties)?.properties);
    expect(obj(replica?.restartPolicy)?.enum).toEqual(['', 'Always', 'OnFailure', 'Never', 'ExitCode']);
    expect(obj(obj(obj(props?.runPolicy)?.properties)?.cleanPodPolicy)?.enum).toEqual(['', 'All', 'Running', 'None']);
    expect(obj(props?.successPolicy)?.enum).toEqual(['', 'AllWorkers']);
  });
});
