// The schema contract: every TFJob tf-operator v1.8.1 accepts is accepted by our CRD (minus the
// documented deliberate rejections), and every rejection names the field. The lead's integration
// test applies the same manifests to a real kube-apiserver; here the OpenAPI part is evaluated by a
// small checker and the CEL part by its TypeScript mirror (validateTFJob).

import { describe, expect, it } from 'vitest';
import { generateCrd } from '../../../hack/crd-generate.ts';
import { aggregateFieldErrors, formatFieldError } from '../../../src/api/v1/field-error.ts';
import { parseTFJob } from '../../../src/api/v1/parse.ts';
import { validateTFJob } from '../../../src/api/v1/validation.ts';
import { checkOpenApi } from './helpers/openapi-check.ts';
import type { Json } from './helpers/fixtures.ts';
import { OUR_CRD_PATH, UPSTREAM_CRD_PATH, crdSchema, crdVersion, manifests, readText } from './helpers/fixtures.ts';

const upstream = crdSchema(UPSTREAM_CRD_PATH);
const ours = crdSchema(OUR_CRD_PATH);
const valid = manifests('valid');
const invalid = manifests('invalid');

/** Everything our admission would say: OpenAPI errors, then the CEL rules' mirror. */
function ourErrors(object: Json): string[] {
  const errors = checkOpenApi(ours, object);
  const parsed = parseTFJob(object);
  if (!parsed.ok) return [...errors, parsed.message];
  return [...errors, ...validateTFJob(parsed.job).map(formatFieldError)];
}

describe('generated CRD', () => {
  it('is up to date with hack/gen-crd.ts (run `npm run gen:crd`)', () => {
    expect(readText(OUR_CRD_PATH) === generateCrd(readText(UPSTREAM_CRD_PATH))).toBe(true);
  });

  it('keeps upstream identity: tfjobs.kubeflow.org, v1 served and storage, status subresource', () => {
    const text = readText(OUR_CRD_PATH);
    expect(text).toContain('name: tfjobs.kubeflow.org');
    const version = crdVersion(OUR_CRD_PATH);
    expect(version).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} } });
  });

  it('has upstream State and Age columns plus our queue and plan columns', () => {
    const columns = crdVersion(OUR_CRD_PATH).additionalPrinterColumns as Json[];
    expect(columns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['State', '.status.conditions[-1:].type', 0],
      ['Queue', '.status.scheduling.queue', 0],
      ['Weight', '.status.scheduling.weight', 0],
      ['Workers', '.status.scheduling.workersSummary', 0],
      ['Target', '.status.qoe.class', 0],
      ['Plan', '.status.progress.plan', 0],
      ['Age', '.metadata.creationTimestamp', 0],
      ['Reason', '.status.scheduling.reason', 1],
      ['Progress', '.status.progress.phase', 1],
      ['ETA', '.status.progress.eta', 1],
    ]);
  });
});

describe('fixtures', () => {
  it('are a varied set of at least 40 manifests', () => {
    expect(valid.length + invalid.length).toBeGreaterThanOrEqual(40);
    expect(valid.length).toBeGreaterThanOrEqual(30);
  });
});

describe('valid manifests', () => {
  it.each(valid.map((m) => [m.file, m] as const))('%s: accepted by the v1.8.1 CRD and by ours', (_file, manifest) => {
    expect(checkOpenApi(upstream, manifest.object)).toEqual([]);
    expect(ourErrors(manifest.object)).toEqual([]);
  });
});

describe('invalid manifests', () => {
  it.each(invalid.map((m) => [m.file, m] as const))('%s: rejected, naming the field', (_file, manifest) => {
    expect(manifest.expect, 'needs a "# expect:" line').toBeDefined();
    const errors = ourErrors(manifest.object);
    expect(errors.join('\n')).toContain(manifest.expect);
  });

  it.each(invalid.map((m) => [m.file, m] as const))('%s: "rejected-by" tells who rejected it before', (_file, manifest) => {
    const upstreamSchemaErrors = checkOpenApi(upstream, manifest.object);
    if (manifest.rejectedBy === 'crd-v1.8.1') expect(upstreamSchemaErrors).not.toEqual([]);
    else {
      expect(['tf-operator-webhook', 'ours']).toContain(manifest.rejectedBy);
      expect(upstreamSchemaErrors).toEqual([]);
    }
  });

  it('tf-operator webhook cases are rejected by our validation with tf-operator’s own messages', () => {
    const webhookCases = invalid.filter((m) => m.rejectedBy === 'tf-operator-webhook' && m.file !== 'i02-no-spec.yaml');
    for (const manifest of webhookCases) {
      const parsed = parseTFJob(manifest.object);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(aggregateFieldErrors(validateTFJob(parsed.job))).not.toBe('');
    }
  });
});
