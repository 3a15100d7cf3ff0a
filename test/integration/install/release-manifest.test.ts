// The release manifest (npm run release:manifest): config/default exactly as kustomize renders it, the
// image set for the release, and an install that the API server accepts (server-side dry run on the
// shared control plane: nothing is changed there).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { renderReleaseManifest } from '../../../hack/release-manifest.ts';
import { clusterState } from '../../support/kube.ts';
import { CONFIG_DIR, kubectl, render, type K8sObject } from './helpers.ts';

const parse = (text: string): K8sObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o) => o !== null);

describe('release manifest', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'release-'));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await kubectl(clusterState().kubectl, clusterState().kubeconfig, [
      'delete',
      'namespace',
      'tfjob-operator-system',
      '--ignore-not-found',
      '--wait=false',
    ]);
  });

  it('is config/default with every CRD, and only the image changes when one is given', async () => {
    const { kubectl: kubectlPath } = clusterState();
    const expected = await render(kubectlPath, path.join(CONFIG_DIR, 'default'));
    expect(parse(await renderReleaseManifest({ kubectl: kubectlPath }))).toEqual(expected);

    const image = 'registry.example/tfjob-operator:9.9.9';
    const released = parse(await renderReleaseManifest({ kubectl: kubectlPath, image }));
    expect(released.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([
      'clusterqueues.tfjob-operator.kubeflow.org',
      'localqueues.tfjob-operator.kubeflow.org',
      'tfjobs.kubeflow.org',
    ]);
    const deployment = released.find((o) => o.kind === 'Deployment') as K8sObject & {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    expect(deployment.spec.template.spec.containers.map((c) => c.image)).toEqual([image]);
    const withoutImage = (objs: K8sObject[]) =>
      JSON.stringify(objs)
        .replaceAll(image, 'IMAGE')
        .replace(/"image":"tfjob-operator:[^"]*"/, '"image":"IMAGE"');
    expect(withoutImage(released)).toBe(withoutImage(expected));

    // A dry run creates nothing, so the objects of the operator's namespace need it to exist.
    await kubectl(kubectlPath, clusterState().kubeconfig, ['create', 'namespace', 'tfjob-operator-system']);
    const file = path.join(dir, 'install.yaml');
    writeFileSync(file, await renderReleaseManifest({ kubectl: kubectlPath, image }));
    const dry = await kubectl(kubectlPath, clusterState().kubeconfig, [
      'apply',
      '--server-side',
      '--force-conflicts',
      '--dry-run=server',
      '-f',
      file,
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toHaveLength(expected.length);
  });
});
