// The schema contract on real API servers: every fixture TFJob that the Kubeflow v1.8.1 CRD accepts
// is accepted by ours (proved on a second, private API server running the upstream CRD), and every
// invalid fixture is rejected by ours with an error that names the field.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { LocalCluster, REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { installCrd } from '../../support/crd.ts';
import { adminKubeConfig, createNamespace, deleteNamespace } from '../../support/kube.ts';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'tfjobs');
const UPSTREAM_CRD = path.join(REPO_ROOT, 'test', 'fixtures', 'kubeflow.org_tfjobs.v1.8.1.yaml');

interface Fixture {
  readonly file: string;
  readonly body: Record<string, unknown>;
  readonly expect?: string;
  readonly rejectedBy?: string;
}

function load(kind: 'valid' | 'invalid' | 'real-world'): Fixture[] {
  const dir = path.join(FIXTURES, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const header = (key: string) => new RegExp(`^# ${key}: (.*)$`, 'm').exec(text)?.[1]?.trim();
      return { file, body: parse(text) as Record<string, unknown>, expect: header('expect'), rejectedBy: header('rejected-by') };
    });
}

async function create(
  kc: KubeConfig,
  namespace: string,
  body: Record<string, unknown>,
  fieldValidation?: 'Strict',
): Promise<{ ok: true; stored: Record<string, unknown> } | { ok: false; message: string }> {
  try {
    const stored = (await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace,
      body,
      ...(fieldValidation ? { fieldValidation } : {}),
    })) as Record<string, unknown>;
    return { ok: true, stored };
  } catch (err) {
    const raw = (err as { body?: string }).body ?? String(err);
    let message = raw;
    try {
      message = (JSON.parse(raw) as { message: string }).message;
    } catch {
      // keep raw
    }
    return { ok: false, message };
  }
}

const valid = load('valid');
const invalid = load('invalid');
/**
 * Other people's TFJobs as written, but created in the test's namespace under a name of their own
 * (several share a name, e.g. the dist-mnist example).
 */
const realWorld = load('real-world').map((f) => {
  const metadata: Record<string, unknown> = { ...(f.body.metadata as Record<string, unknown>), name: `real-world-${f.file.slice(0, 3)}` };
  delete metadata.namespace;
  return { ...f, body: { ...f.body, metadata } };
});

describe('TFJob CRD contract', () => {
  let ns: string;
  let upstream: LocalCluster;

  beforeAll(async () => {
    ns = await createNamespace('crd');
    // A private API server (etcd + kube-apiserver only) with the upstream v1.8.1 CRD installed.
    upstream = await LocalCluster.start({ controllerManager: false, kwok: false, onProgress: () => undefined });
    await installCrd(upstream.kubeConfig(), UPSTREAM_CRD);
  });
  afterAll(async () => {
    await deleteNamespace(ns);
    await upstream.stop();
  });

  it('has enough fixtures to mean something', () => {
    expect(valid.length).toBeGreaterThanOrEqual(30);
    expect(invalid.length).toBeGreaterThanOrEqual(15);
  });

  it.each(valid.map((f) => [f.file, f] as const))('accepts %s, as the v1.8.1 CRD does', async (_name, fixture) => {
    const theirs = await create(upstream.kubeConfig(), 'default', fixture.body);
    expect(theirs.ok ? 'accepted' : theirs.message, 'the upstream v1.8.1 CRD must accept every valid fixture').toBe('accepted');
    const ours = await create(adminKubeConfig(), ns, fixture.body);
    expect(ours.ok ? 'accepted' : ours.message).toBe('accepted');
    if (theirs.ok && ours.ok) {
      // Everything the upstream CRD keeps, ours keeps identically (ours may keep more: our own fields).
      expect(ours.stored.spec).toMatchObject(theirs.stored.spec as Record<string, unknown>);
    }
  });

  it.each(realWorld.map((f) => [f.file, f] as const))(
    'accepts real-world %s and keeps what the v1.8.1 CRD keeps',
    async (_name, fixture) => {
      const theirs = await create(upstream.kubeConfig(), 'default', fixture.body);
      const ours = await create(adminKubeConfig(), ns, fixture.body);
      expect([theirs.ok ? 'accepted' : theirs.message, ours.ok ? 'accepted' : ours.message]).toEqual(['accepted', 'accepted']);
      if (theirs.ok && ours.ok) expect(ours.stored.spec).toEqual(theirs.stored.spec);
    },
  );

  it('runPolicy.managedBy: an unknown field to the v1.8.1 CRD under strict validation (kubectl), accepted by ours', async () => {
    const job = (name: string) => ({
      apiVersion: 'kubeflow.org/v1',
      kind: 'TFJob',
      metadata: { name },
      spec: {
        runPolicy: { managedBy: 'kubeflow.org/training-operator' },
        tfReplicaSpecs: { Worker: { replicas: 1, template: { spec: { containers: [{ name: 'tensorflow', image: 'busybox' }] } } } },
      },
    });
    const theirs = await create(upstream.kubeConfig(), 'default', job('managed-by-strict'), 'Strict');
    expect(theirs.ok ? 'accepted' : theirs.message).toContain('unknown field "spec.runPolicy.managedBy"');
    const ours = await create(adminKubeConfig(), ns, job('managed-by-strict'), 'Strict');
    expect(ours.ok ? 'accepted' : ours.message).toBe('accepted');
  });

  it.each(invalid.map((f) => [f.file, f] as const))('rejects %s naming the field', async (_name, fixture) => {
    expect(fixture.expect, `${fixture.file} needs an "# expect:" header`).toBeTruthy();
    const ours = await create(adminKubeConfig(), ns, fixture.body);
    expect(ours.ok ? 'accepted' : ours.message).toContain(fixture.expect);
    if (fixture.rejectedBy === 'crd-v1.8.1') {
      const theirs = await create(upstream.kubeConfig(), 'default', fixture.body);
      expect(theirs.ok, 'the header says the upstream CRD rejects it too').toBe(false);
    }
  });
});
