// The Helm chart (charts/tfjob-operator): `helm lint --strict`, the same objects as config/default with
// the default values (but the Namespace, which `helm install --create-namespace` makes), each value
// doing what values.yaml says, and a server-side dry-run install against the local control plane.
// helm is built from Go modules like the other upstream binaries (hack/tools/helm).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ensureUpstream, REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { clusterState, createNamespace, deleteNamespace } from '../../support/kube.ts';
import { CONFIG_DIR, render, type CommandResult, type K8sObject } from './helpers.ts';

const CHART = path.join(REPO_ROOT, 'charts', 'tfjob-operator');
const NS = 'tfjob-operator-system';
const HELM_ONLY_LABELS = ['app.kubernetes.io/managed-by', 'helm.sh/chart'];

interface Deployment extends K8sObject {
  spec: { template: { spec: { containers: { args: string[]; image: string }[] } } };
}

let helmPath = '';

function helm(args: readonly string[]): Promise<CommandResult> {
  const child = spawn(helmPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HELM_CACHE_HOME: '/tmp/helm-cache', HELM_CONFIG_HOME: '/tmp/helm-config', HELM_DATA_HOME: '/tmp/helm-data' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

async function template(values: readonly string[] = []): Promise<K8sObject[]> {
  const res = await helm([
    'template',
    'tfjob-operator',
    CHART,
    '-n',
    NS,
    '--kube-version',
    '1.36.3',
    '--include-crds',
    ...values.flatMap((v) => ['--set', v]),
  ]);
  expect(res.code, res.stderr).toBe(0);
  return parseAllDocuments(res.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o) => o !== null);
}

/** Objects compared without Helm's own labels, CRDs without config/default's labels, sorted. */
function normalized(objects: readonly K8sObject[]): K8sObject[] {
  return objects
    .filter((o) => o.kind !== 'Namespace')
    .map((o) => {
      const labels = Object.fromEntries(Object.entries(o.metadata.labels ?? {}).filter(([k]) => !HELM_ONLY_LABELS.includes(k)));
      const metadata = { ...o.metadata, labels };
      if (o.kind === 'CustomResourceDefinition') delete (metadata as { labels?: unknown }).labels;
      return { ...o, metadata };
    })
    .sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
}

const argsOf = (objects: readonly K8sObject[]): string[] =>
  (objects.find((o) => o.kind === 'Deployment') as Deployment).spec.template.spec.containers[0]!.args;

describe('Helm chart', () => {
  let ns: string;
  beforeAll(async () => {
    helmPath = path.join((await ensureUpstream(['helm'])).helm ?? '', 'helm');
    ns = await createNamespace('helm');
  });
  afterAll(async () => {
    await deleteNamespace(ns);
  });

  it('passes helm lint --strict', async () => {
    const res = await helm(['lint', '--strict', CHART]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('renders the objects of config/default with its default values', async () => {
    const kustomized = await render(clusterState().kubectl, path.join(CONFIG_DIR, 'default'));
    expect(normalized(await template())).toEqual(normalized(kustomized));
  });

  it('maps its values onto the operator: image, namespaces, policy, flags, leader election, PDB, ServiceMonitor', async () => {
    const objects = await template([
      'image.repository=registry.example/tfjob-operator',
      'image.tag=9.9.9',
      'namespaces={team-a,team-b}',
      'policy=kod2',
      'extraArgs={--starve-limit=20m}',
      'leaderElection.enabled=false',
      'replicas=1',
      'podDisruptionBudget.enabled=false',
      'metrics.serviceMonitor.enabled=true',
    ]);
    const deployment = objects.find((o) => o.kind === 'Deployment') as Deployment & { spec: { replicas: number } };
    expect(deployment.spec.template.spec.containers[0]!.image).toBe('registry.example/tfjob-operator:9.9.9');
    expect(deployment.spec.replicas).toBe(1);
    expect(argsOf(objects)).toEqual([
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
      '--namespace=team-a,team-b',
      '--policy=kod2',
      '--starve-limit=20m',
    ]);
    const kinds = objects.map((o) => o.kind);
    expect(kinds).not.toContain('PodDisruptionBudget');
    expect(kinds).not.toContain('Role');
    expect(kinds).toContain('ServiceMonitor');
  });

  it('grants nodes/proxy only when asked (nodeStatsAccess, for --flowcon-cpu used), as config/rbac/optional does', async () => {
    const names = (objects: readonly K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names(await template()).filter((n) => n.includes('node-stats'))).toEqual([]);
    // The chart labels everything it makes; the grant itself (rules, role, subject) must be the same.
    const unlabelled = (objects: readonly K8sObject[]) => normalized(objects).map((o) => ({ ...o, metadata: { name: o.metadata.name } }));
    const granted = unlabelled((await template(['nodeStatsAccess=true'])).filter((o) => o.metadata.name.endsWith('-node-stats')));
    expect(granted).toHaveLength(2);
    expect(granted).toEqual(unlabelled(await render(clusterState().kubectl, path.join(CONFIG_DIR, 'rbac', 'optional'))));
  });

  it('renders with a plain helm template (Helm default Kubernetes version) and refuses a version below 1.29', async () => {
    const plain = await helm(['template', 'tfjob-operator', CHART, '-n', NS, '--include-crds']);
    expect(plain.code, plain.stderr).toBe(0);
    const objects = parseAllDocuments(plain.stdout)
      .map((d) => d.toJS() as K8sObject | null)
      .filter((o) => o !== null);
    expect(normalized(objects)).toEqual(normalized(await template()));
    const old = await helm(['template', 'tfjob-operator', CHART, '-n', NS, '--kube-version', '1.28.5']);
    expect(old.code).not.toBe(0);
    expect(old.stderr).toContain('tfjob-operator needs Kubernetes 1.29 or newer');
    expect(old.stderr).toContain('v1.28.5');
  });

  it('installs on the control plane (server-side dry run)', async () => {
    const res = await helm([
      'install',
      'tfjob-operator',
      CHART,
      '-n',
      ns,
      '--kubeconfig',
      clusterState().kubeconfig,
      '--dry-run=server',
      '--skip-crds',
      '--set',
      `fullnameOverride=${ns}`,
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('STATUS: pending-install');
  });
});
