// Helpers for tests of the install manifests (config/) and of the operator as an admin runs it:
// the pinned kubectl, kustomize rendering, the operator's RBAC bound to a test ServiceAccount, and
// ServiceAccount tokens as kubeconfig files.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { fakeNodes, REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { renderKubeconfig } from '../../../lab/local-cluster/kubeconfig.ts';
import { uniqueName } from '../../support/kube.ts';
import { createTestNodes, deleteTestNodes } from '../../support/nodes.ts';

export const CONFIG_DIR = path.join(REPO_ROOT, 'config');

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the pinned kubectl against `kubeconfig`; never throws on a non-zero exit. */
export async function kubectl(kubectlPath: string, kubeconfig: string, args: readonly string[], input?: string): Promise<CommandResult> {
  const child = spawn(kubectlPath, [`--kubeconfig=${kubeconfig}`, ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: REPO_ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(input ?? '');
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => {
      resolve(c ?? 1);
    });
  });
  return { code, stdout, stderr };
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** `kubectl kustomize <dir>`, parsed. */
export async function render(kubectlPath: string, dir: string): Promise<K8sObject[]> {
  // kustomize needs no cluster; any kubeconfig path will do.
  const res = await kubectl(kubectlPath, '/dev/null', ['kustomize', dir]);
  if (res.code !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${res.stderr}`);
  return parseAllDocuments(res.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o) => o !== null);
}

export function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (o === undefined) throw new Error(`${kind}/${name} not rendered`);
  return o;
}

export interface OperatorRbac {
  /** The ServiceAccount bound to the operator's roles (in `namespace`). */
  readonly serviceAccount: string;
  readonly clusterRole: string;
  readonly clusterRoleBinding: string;
  /** Deletes the cluster-scoped objects (the namespaced ones go with the namespace). */
  cleanup(): Promise<void>;
}

/**
 * Applies config/rbac exactly as shipped, through a throw-away kustomization that only moves it into
 * `namespace` and prefixes every name (so test files never share cluster-scoped objects).
 */
export async function installOperatorRbac(opts: {
  kubectlPath: string;
  kubeconfig: string;
  admin: KubeConfig;
  namespace: string;
  prefix: string;
}): Promise<OperatorRbac> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-rbac-'));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `namespace: ${opts.namespace}`,
        `namePrefix: ${opts.prefix}-`,
        'resources:',
        // kustomize accepts only relative paths to other kustomizations.
        `- ${path.relative(dir, path.join(CONFIG_DIR, 'rbac'))}`,
        '',
      ].join('\n'),
    );
    const res = await kubectl(opts.kubectlPath, opts.kubeconfig, ['apply', '--server-side', '-k', dir]);
    if (res.code !== 0) throw new Error(`applying config/rbac failed: ${res.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const name = `${opts.prefix}-tfjob-operator`;
  const rbac = opts.admin.makeApiClient(RbacAuthorizationV1Api);
  return {
    serviceAccount: name,
    clusterRole: name,
    clusterRoleBinding: name,
    cleanup: async () => {
      await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
      await rbac.deleteClusterRole({ name }).catch(() => undefined);
    },
  };
}

/** A bound ServiceAccount token (TokenRequest API), as a pod would get it. */
export async function serviceAccountToken(admin: KubeConfig, namespace: string, serviceAccount: string): Promise<string> {
  const res = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = res.status?.token;
  if (token === undefined || token === '') throw new Error(`no token issued for ${namespace}/${serviceAccount}`);
  return token;
}

/** Writes a kubeconfig file that authenticates with `token` (for operator processes). */
export function writeTokenKubeconfig(dir: string, name: string, cluster: { server: string; caFile: string }, token: string): string {
  const file = path.join(dir, `${name}.kubeconfig`);
  writeFileSync(file, renderKubeconfig({ server: cluster.server, caFile: cluster.caFile, user: { name, token } }), { mode: 0o600 });
  return file;
}

export interface NodePool {
  readonly name: string;
  readonly nodes: readonly string[];
  /** Operator flags that restrict its placement to the pool. */
  readonly operatorFlags: readonly string[];
  delete(): Promise<void>;
}

const POOL_KEY = 'tfjob-test/dedicated';

/**
 * Fake nodes only our operator places on: labelled for --node-selector and tainted so that
 * kube-scheduler (serving other test files' pods) never uses them.
 */
export async function createNodePool(prefix: string, count: number, capacity: Record<string, string>): Promise<NodePool> {
  const name = uniqueName(prefix);
  const nodes = await createTestNodes(
    fakeNodes(name, count, { capacity, labels: { [POOL_KEY]: name }, taints: [{ key: POOL_KEY, value: name, effect: 'NoSchedule' }] }),
  );
  return { name, nodes, operatorFlags: ['--node-selector', `${POOL_KEY}=${name}`], delete: () => deleteTestNodes(nodes) };
}

/** Lets every replica of `job` tolerate the pool's taint. */
export function onPool<T extends { spec: Record<string, unknown> }>(job: T, pool: NodePool): T {
  const specs = job.spec.tfReplicaSpecs as Record<string, { template: { spec: Record<string, unknown> } }>;
  for (const s of Object.values(specs))
    s.template.spec.tolerations = [{ key: POOL_KEY, operator: 'Equal', value: pool.name, effect: 'NoSchedule' }];
  return job;
}
