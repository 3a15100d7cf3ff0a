// The operator as users install it, on the real node: the Dockerfile's image built on this machine
// (lab/local-cluster/real-node/operator-image.ts) and imported into the node's containerd, installed
// (a) with the Helm chart and (b) from the release manifest (hack/release-manifest.ts). Each install:
// two replicas Ready on the real node, one of them holding the leader Lease, /metrics, /healthz and
// /readyz served by each pod (through the apiserver's pod proxy), and one real TensorFlow PS/worker
// job run by the in-cluster operator (its ServiceAccount token, the `kubernetes` Service address) to
// Succeeded. Each test removes what it installed (not the CRDs: the other files use them).
//
// Resources: the chart's defaults (100m cpu / 256Mi requested per replica) are kept; 2 × 100m plus the
// job's PS (200m) and worker (500m) fit the node's 2 cpu.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppsV1Api, CoordinationV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { CACHE_ROOT, ensureUpstream, REPO_ROOT } from '../../lab/local-cluster/index.ts';
import { pruneImageReferences } from '../../lab/local-cluster/real-node/cache-prune.ts';
import { containerdPaths, importImages, importStampFile, K8S_NAMESPACE } from '../../lab/local-cluster/real-node/containerd.ts';
import { operatorImage, type OperatorImage } from '../../lab/local-cluster/real-node/operator-image.ts';
import { REAL_NODE_LABEL } from '../../lab/local-cluster/real-node/index.ts';
import { kubectl, type CommandResult, type K8sObject } from '../integration/install/helpers.ts';
import { adminKubeConfig, apiStatus, clusterState, createNamespace, eventually } from '../support/kube.ts';
import { coreApi, createTFJob, waitForCondition } from '../support/tfjob.ts';
import {
  createTrainers,
  deleteNamespaceAndWait,
  doneStep,
  podLog,
  REAL_NODE_SELECTOR,
  realJob,
  realNodeName,
  realNodeSkipped,
} from './support.ts';

const SYSTEM_NS = 'tfjob-operator-system';
const LEASE = 'tfjob-operator.kubeflow.org';
const OPERATOR_PODS = 'app.kubernetes.io/name=tfjob-operator,app.kubernetes.io/component=controller';
const CHART = path.join(REPO_ROOT, 'charts', 'tfjob-operator');
const STEPS = 100;

const log = (line: string) => process.stderr.write(`[install] ${line}\n`);
const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;

function command(binary: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  const child = spawn(binary, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

const k = (args: readonly string[]) => kubectl(clusterState().kubectl, clusterState().kubeconfig, args);

/** The operator's pods on the real node, once `count` are Ready; the seconds since `since`. */
async function waitOperatorReady(count: number, since: number): Promise<{ pods: V1Pod[]; readySeconds: number }> {
  const pods = await eventually(
    async () => {
      const items = (await coreApi().listNamespacedPod({ namespace: SYSTEM_NS, labelSelector: OPERATOR_PODS })).items.filter(
        (p) => p.metadata?.deletionTimestamp === undefined,
      );
      const ready = items.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return items.length === count && ready.length === count ? items : false;
    },
    { what: `${count} Ready operator pods in ${SYSTEM_NS}`, timeoutMs: 240_000, intervalMs: 500 },
  ).catch(async (err: unknown) => {
    const pods = await k(['-n', SYSTEM_NS, 'get', 'pods', '-o', 'wide']);
    const events = await k(['-n', SYSTEM_NS, 'get', 'events', '--sort-by=.lastTimestamp']);
    const logs = await k(['-n', SYSTEM_NS, 'logs', '-l', OPERATOR_PODS, '--tail=30', '--all-containers']);
    throw new Error(`${(err as Error).message}\n${pods.stdout}\n${events.stdout}\n${logs.stdout}${logs.stderr}`, { cause: err });
  });
  return { pods, readySeconds: seconds(since) };
}

/** What every install must show: pods on the real node, a leader among them, metrics and probes served. */
async function checkInstalled(pods: readonly V1Pod[]): Promise<void> {
  const names = pods.map((p) => p.metadata?.name ?? '');
  for (const p of pods) expect(p.spec?.nodeName).toBe(realNodeName());
  // The identity is the pod's name (--identity from POD_NAME, set by the Deployment's downward API).
  const holder = await eventually(
    async () => {
      const lease = await adminKubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ name: LEASE, namespace: SYSTEM_NS });
      const h = lease.spec?.holderIdentity ?? '';
      return names.includes(h) ? h : false;
    },
    { what: `Lease ${LEASE} held by one of ${names.join(', ')}`, timeoutMs: 60_000, intervalMs: 1_000 },
  );
  log(`leader: ${holder}`);
  for (const name of names) {
    const proxy = (port: number, p: string) => `/api/v1/namespaces/${SYSTEM_NS}/pods/${name}:${port}/proxy/${p}`;
    const metrics = await k(['get', '--raw', proxy(8080, 'metrics')]);
    expect(metrics.code, metrics.stderr).toBe(0);
    expect(metrics.stdout).toMatch(/^# HELP /m);
    // 1 on the leader, 0 on the standby (controller-runtime's gauge).
    const leading = /^leader_election_master_status\{[^}]*\} (\d)/m.exec(metrics.stdout)?.[1];
    expect(leading).toBe(holder === name ? '1' : '0');
    for (const probe of ['healthz', 'readyz']) {
      const res = await k(['get', '--raw', proxy(8081, probe)]);
      expect(res.code, `${name} /${probe}: ${res.stderr}`).toBe(0);
    }
  }
}

/** One real PS/worker job `name` in `ns`, run by the installed operator, to Succeeded. */
async function runRealJob(ns: string, name: string): Promise<number> {
  const started = Date.now();
  await createTFJob(
    ns,
    realJob(
      name,
      { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '500m' } },
      { env: { STEPS: String(STEPS), STEP_SLEEP: '0.05', PROGRESS_EVERY: '10' } },
    ),
  );
  await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 420_000 }).catch(async (err: unknown) => {
    const pods = await k(['-n', ns, 'get', 'pods,tfjobs', '-o', 'wide']);
    const logs = await k(['-n', SYSTEM_NS, 'logs', '-l', OPERATOR_PODS, '--tail=40', '--all-containers', '--prefix']);
    throw new Error(`${(err as Error).message}\n${pods.stdout}\n${logs.stdout}`, { cause: err });
  });
  expect(doneStep(await podLog(ns, `${name}-worker-0`))).toBeGreaterThanOrEqual(STEPS);
  const pod = await coreApi().readNamespacedPod({ name: `${name}-worker-0`, namespace: ns });
  expect(pod.spec?.nodeName).toBe(realNodeName());
  const jobSeconds = seconds(started);
  log(`TFJob ${ns}/${name} (1 PS + 1 worker, ${STEPS} steps) Succeeded in ${jobSeconds} s`);
  return jobSeconds;
}

async function waitOperatorGone(): Promise<void> {
  await eventually(
    async () => (await coreApi().listNamespacedPod({ namespace: SYSTEM_NS, labelSelector: OPERATOR_PODS })).items.length === 0 || false,
    {
      what: `operator pods in ${SYSTEM_NS} gone`,
      timeoutMs: 120_000,
      intervalMs: 1_000,
    },
  );
}

async function waitNamespaceGone(name: string): Promise<void> {
  await eventually(
    async () => {
      try {
        await coreApi().readNamespace({ name });
        return false;
      } catch (err) {
        if (apiStatus(err) === 404) return true;
        throw err;
      }
    },
    { what: `namespace ${name} deleted`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
}

describe.skipIf(realNodeSkipped() !== undefined)('the operator as users install it, on the real node', () => {
  let image: OperatorImage;
  let ns = '';

  beforeAll(async () => {
    const node = inject('realNode');
    if ('skipped' in node) throw new Error(node.skipped);
    const started = Date.now();
    image = await operatorImage(path.join(CACHE_ROOT, 'real-node', 'images'), log);
    log(
      `image ${image.reference}: ${Math.round(image.archiveBytes / 2 ** 20)} MiB, ${image.buildSeconds === 0 ? 'cached' : `built in ${image.buildSeconds} s`}`,
    );
    const imported = Date.now();
    const store = containerdPaths(node.workDir, path.join(CACHE_ROOT, 'real-node', 'containerd'));
    await importImages(store, [image], log);
    // Earlier builds of the operator image (one per source change) are removed from the store.
    await pruneImageReferences(store.socket, K8S_NAMESPACE, importStampFile(store), [image.reference], log);
    log(`image imported into the node's containerd in ${seconds(imported)} s (ready ${seconds(started)} s after the start)`);
    ns = await createNamespace('real-install');
    await createTrainers(ns);
  }, 1_200_000);

  afterAll(async () => {
    if (ns !== '') await deleteNamespaceAndWait(ns);
  });

  it('installs with the Helm chart, runs a real job, and uninstalls', { timeout: 900_000 }, async () => {
    const helm = path.join((await ensureUpstream(['helm'])).helm ?? '', 'helm');
    const home = mkdtempSync(path.join(os.tmpdir(), 'helm-home-'));
    const helmEnv = {
      ...process.env,
      HELM_CACHE_HOME: path.join(home, 'cache'),
      HELM_CONFIG_HOME: path.join(home, 'config'),
      HELM_DATA_HOME: path.join(home, 'data'),
    };
    const helmCmd = (args: readonly string[]) => command(helm, [...args, '--kubeconfig', clusterState().kubeconfig], helmEnv);
    try {
      const started = Date.now();
      const install = await helmCmd([
        'install',
        'tfjob-operator',
        CHART,
        '-n',
        SYSTEM_NS,
        '--create-namespace',
        // The suite's global setup installed the CRDs (from crds/, which the chart's crds/ copies).
        '--skip-crds',
        '--set',
        `image.repository=${image.repository}`,
        '--set',
        `image.tag=${image.tag}`,
        '--set',
        'image.pullPolicy=Never',
        '--set',
        'replicas=2',
        '--set-string',
        `nodeSelector.${REAL_NODE_LABEL.replaceAll('.', '\\.')}=true`,
        '--set',
        `namespaces={${ns}}`,
        // The default policy (ours) places pods itself: only on the real node, never on the kwok ones.
        '--set',
        `extraArgs={--node-selector=${REAL_NODE_SELECTOR},--scheduling-interval=1s}`,
      ]);
      expect(install.code, install.stderr).toBe(0);
      const deployment = await adminKubeConfig()
        .makeApiClient(AppsV1Api)
        .readNamespacedDeployment({ name: 'tfjob-operator', namespace: SYSTEM_NS });
      expect(deployment.spec?.template.spec?.containers[0]?.image).toBe(image.reference);
      const { pods, readySeconds } = await waitOperatorReady(2, started);
      log(`helm install: 2/2 Ready in ${readySeconds} s`);
      await checkInstalled(pods);
      await runRealJob(ns, 'helm-job');
    } finally {
      const uninstall = await helmCmd(['uninstall', 'tfjob-operator', '-n', SYSTEM_NS, '--wait', '--timeout', '120s']);
      await waitOperatorGone();
      await coreApi()
        .deleteNamespace({ name: SYSTEM_NS })
        .catch(() => undefined);
      await waitNamespaceGone(SYSTEM_NS);
      rmSync(home, { recursive: true, force: true });
      expect(uninstall.code, uninstall.stderr).toBe(0);
    }
  });

  it('installs from the release manifest, runs a real job, and is deleted', { timeout: 900_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'release-'));
    const released = path.join(dir, 'install.yaml');
    const edited = path.join(dir, 'install-real-node.yaml');
    let created: K8sObject[] = [];
    try {
      // The command of the README, under the pinned Node that runs this test.
      const gen = await command(process.execPath, [
        path.join(REPO_ROOT, 'hack', 'release-manifest.ts'),
        '--image',
        image.reference,
        '--out',
        released,
      ]);
      expect(gen.code, gen.stderr).toBe(0);
      const docs = parseAllDocuments(readFileSync(released, 'utf8'))
        .map((d) => d.toJS() as K8sObject | null)
        .filter((o) => o !== null);
      // For this node: the pods on it, the image never pulled, the operator's placement and jobs limited
      // to the real node and the test's namespace.
      const deployment = docs.find((o) => o.kind === 'Deployment') as K8sObject & {
        spec: {
          replicas: number;
          template: {
            spec: { nodeSelector?: Record<string, string>; containers: { image: string; imagePullPolicy: string; args: string[] }[] };
          };
        };
      };
      expect(deployment.spec.replicas).toBe(2);
      deployment.spec.template.spec.nodeSelector = { [REAL_NODE_LABEL]: 'true' };
      for (const c of deployment.spec.template.spec.containers) {
        expect(c.image).toBe(image.reference);
        c.imagePullPolicy = 'Never';
        c.args.push(`--node-selector=${REAL_NODE_SELECTOR}`, `--namespace=${ns}`, '--scheduling-interval=1s');
      }
      writeFileSync(edited, docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
      created = docs.filter((o) => o.kind !== 'CustomResourceDefinition');

      const started = Date.now();
      // --force-conflicts: the suite's setup created the CRDs with another field manager.
      const apply = await k(['apply', '--server-side', '--force-conflicts', '-f', edited]);
      expect(apply.code, apply.stderr).toBe(0);
      const { pods, readySeconds } = await waitOperatorReady(2, started);
      log(`release manifest: 2/2 Ready in ${readySeconds} s`);
      await checkInstalled(pods);
      await runRealJob(ns, 'release-job');
    } finally {
      if (created.length > 0) {
        // Everything but the CRDs: the Namespace (and with it the Deployment, Service, PDB, Role,
        // ServiceAccount), the ClusterRoles and ClusterRoleBindings.
        const rest = path.join(dir, 'created.yaml');
        writeFileSync(rest, created.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
        const del = await k(['delete', '--ignore-not-found', '--wait=true', '--timeout=120s', '-f', rest]);
        await waitOperatorGone();
        await waitNamespaceGone(SYSTEM_NS);
        for (const o of created.filter((x) => x.metadata.namespace === undefined && x.kind !== 'Namespace')) {
          const left = await k(['get', o.kind, o.metadata.name, '--ignore-not-found', '-o', 'name']);
          expect(left.stdout.trim(), `${o.kind}/${o.metadata.name} left behind`).toBe('');
        }
        expect(del.code, del.stderr).toBe(0);
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
