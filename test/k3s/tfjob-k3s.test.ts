// End to end on a real Kubernetes distribution: k3s in Docker (testcontainers), the operator image built
// from the repository's Dockerfile and installed with `kubectl apply --server-side -k` of config/default
// (an overlay only swaps in the freshly built image), and a PS/Worker TFJob whose `tensorflow`
// containers are busybox: they print TF_CONFIG, sleep a few seconds and exit 0. Real kubelet, real pod
// logs, real garbage collection. The Kubeflow SDK reads the real logs here (kwok pods have none).
// See docs/k3s-e2e.md for how to run it; without a Docker engine the suite is skipped with a message.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { SdkDriver } from '../integration/clients/python.ts';
import { loadTestcontainers, type StartedK3sContainer } from './testcontainers.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K3S_IMAGE = process.env.K3S_IMAGE ?? 'rancher/k3s:v1.36.2-k3s1';
const TRAINING_IMAGE = process.env.TFJOB_E2E_TRAINING_IMAGE ?? 'busybox:1.37';
const OPERATOR_NS = 'tfjob-operator-system';
const NS = 'tfjob-e2e';
const JOB = 'dist';
const group = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs' };

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface TFJob {
  metadata: { name: string; uid?: string };
  status?: { conditions?: Condition[]; replicaStatuses?: Record<string, { active?: number; succeeded?: number; failed?: number }> };
}

const docker = inject('k3sDocker');
if (!docker.available) console.warn(`[k3s-e2e] skipped: ${docker.reason}`);

function step(message: string): void {
  process.stderr.write(`[k3s-e2e ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** config/default with the image built by this run (the Deployment already uses IfNotPresent). */
function overlay(image: string): string {
  const [name, tag] = [image.slice(0, image.lastIndexOf(':')), image.slice(image.lastIndexOf(':') + 1)];
  return [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    '- ../config/default',
    'images:',
    '- name: tfjob-operator',
    `  newName: ${name}`,
    `  newTag: ${tag}`,
    '',
  ].join('\n');
}

function trainingJob(): Record<string, unknown> {
  const replica = (replicas: number) => ({
    replicas,
    restartPolicy: 'Never',
    template: {
      spec: {
        containers: [
          {
            name: 'tensorflow',
            image: TRAINING_IMAGE,
            command: ['sh', '-c', 'echo "TF_CONFIG=$TF_CONFIG"; sleep 5; echo done; exit 0'],
            resources: { requests: { cpu: '50m', memory: '32Mi' } },
          },
        ],
      },
    },
  });
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name: JOB },
    spec: { runPolicy: { cleanPodPolicy: 'None' }, tfReplicaSpecs: { PS: replica(1), Worker: replica(2) } },
  };
}

async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const r = await check();
      if (r !== false) return r;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await sleep(1_000);
  }
}

describe.skipIf(!docker.available)('TFJob on a real k3s cluster, operator installed from config/', () => {
  let tmp: string;
  let k3s: StartedK3sContainer | undefined;
  let kc: KubeConfig;
  let kubeconfigFile: string;

  async function kubectl(...args: string[]): Promise<string> {
    if (k3s === undefined) throw new Error('k3s is not running');
    const r = await k3s.exec(['kubectl', ...args]);
    if (r.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.exitCode}: ${r.output}`);
    return r.stdout;
  }

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'tfjob-k3s-'));
    const tc = await loadTestcontainers();
    const image = `localhost/tfjob-operator-e2e:${Date.now().toString(36)}`;
    step(`building ${image} from ${path.join(REPO, 'Dockerfile')} (npm ci + tsc inside Docker; minutes when cold)`);
    await tc.GenericContainer.fromDockerfile(REPO).build(image, { deleteOnExit: true });
    step('exporting the image for k3s (containerd imports /var/lib/rancher/k3s/agent/images/*.tar at start)');
    const tar = path.join(tmp, 'operator-image.tar');
    const client = await tc.getContainerRuntimeClient();
    await pipeline(await client.container.dockerode.getImage(image).get(), createWriteStream(tar));
    step(`starting ${K3S_IMAGE}`);
    k3s = await new tc.K3sContainer(K3S_IMAGE)
      .withCopyFilesToContainer([{ source: tar, target: '/var/lib/rancher/k3s/agent/images/tfjob-operator.tar' }])
      .withCopyDirectoriesToContainer([{ source: path.join(REPO, 'config'), target: '/e2e/config' }])
      .withCopyContentToContainer([{ content: overlay(image), target: '/e2e/overlay/kustomization.yaml' }])
      .start();
    kc = new KubeConfig();
    kc.loadFromString(k3s.getKubeConfig());
    kubeconfigFile = path.join(tmp, 'kubeconfig');
    await writeFile(kubeconfigFile, k3s.getKubeConfig(), { mode: 0o600 });

    step('installing the operator: kubectl apply --server-side -k config/default (+ image overlay)');
    // The CRD must be established before the rest is applied in the same call on a fresh cluster.
    await eventually('config applied', 120_000, async () => (await kubectl('apply', '--server-side', '-k', '/e2e/overlay')).length > 0);
    await kubectl('-n', OPERATOR_NS, 'rollout', 'status', 'deployment/tfjob-operator', '--timeout=300s');
    step('operator Deployment rolled out');
  });

  afterAll(async () => {
    await k3s?.stop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('installs a ready operator that holds the leader lease', async () => {
    const pods = await kc
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: OPERATOR_NS, labelSelector: 'app.kubernetes.io/name=tfjob-operator' });
    expect(pods.items.length).toBeGreaterThan(0);
    for (const p of pods.items) {
      expect(p.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(p.spec?.containers[0]?.image).toMatch(/^localhost\/tfjob-operator-e2e:/);
    }
    const lease = await kubectl('-n', OPERATOR_NS, 'get', 'lease', 'tfjob-operator.kubeflow.org', '-o', 'jsonpath={.spec.holderIdentity}');
    expect(pods.items.map((p) => p.metadata?.name)).toContain(lease);
  });

  it('runs a PS/Worker TFJob to Succeeded with real pods, TF_CONFIG in their logs, readable through the Kubeflow SDK', async () => {
    onTestFailed(async () => {
      process.stderr.write(
        await kubectl('-n', OPERATOR_NS, 'logs', 'deployment/tfjob-operator', '--tail=200').catch((e: unknown) => String(e)),
      );
      process.stderr.write(await kubectl('-n', NS, 'get', 'tfjob,pods,services,events', '-o', 'wide').catch((e: unknown) => String(e)));
    });
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await eventually('default ServiceAccount', 60_000, async () => core.readNamespacedServiceAccount({ name: 'default', namespace: NS }));
    const created = (await custom.createNamespacedCustomObject({ ...group, namespace: NS, body: trainingJob() })) as TFJob;
    step(`created TFJob ${NS}/${JOB}; waiting for Succeeded (pulls ${TRAINING_IMAGE})`);

    const history: string[] = [];
    const done = await eventually('TFJob Succeeded', 300_000, async () => {
      const job = (await custom.getNamespacedCustomObject({ ...group, namespace: NS, name: JOB })) as TFJob;
      const state = (job.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(',');
      if (history.at(-1) !== state) history.push(state);
      if (job.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True'))
        throw new Error(`job failed: ${JSON.stringify(job.status)}`);
      return job.status?.conditions?.at(-1)?.type === 'Succeeded' ? job : false;
    });
    step(`condition history: ${history.join(' → ')}`);
    expect(history).toContain('Created=True,Running=True');
    expect(done.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['Created=True', 'Running=False', 'Succeeded=True']);
    expect(done.status?.conditions?.at(-1)).toMatchObject({
      reason: 'TFJobSucceeded',
      message: `TFJob ${NS}/${JOB} successfully completed.`,
    });

    const pods = (await core.listNamespacedPod({ namespace: NS, labelSelector: `training.kubeflow.org/job-name=${JOB}` })).items;
    expect(pods.map((p) => p.metadata?.name).sort()).toEqual([`${JOB}-ps-0`, `${JOB}-worker-0`, `${JOB}-worker-1`]);
    for (const p of pods) {
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: 'TFJob',
        name: JOB,
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
      expect(p.spec?.nodeName).toEqual(expect.any(String));
    }
    // A real kubelet ran the container to exit code 0.
    const worker0 = pods.find((p) => p.metadata?.name === `${JOB}-worker-0`);
    expect(worker0?.status?.phase).toBe('Succeeded');
    expect(worker0?.status?.containerStatuses?.find((c) => c.name === 'tensorflow')?.state?.terminated?.exitCode).toBe(0);

    const tfConfig = `{"cluster":{"ps":["${JOB}-ps-0.${NS}.svc:2222"],"worker":["${JOB}-worker-0.${NS}.svc:2222","${JOB}-worker-1.${NS}.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}`;
    const log = await core.readNamespacedPodLog({ name: `${JOB}-worker-0`, namespace: NS, container: 'tensorflow' });
    expect(log).toBe(`TF_CONFIG=${tfConfig}\ndone\n`);

    // The SDK's get_job_logs on real pods: the master pod by default, every pod with is_master=False.
    const sdk = await SdkDriver.start();
    try {
      await sdk.ok('init', { config_file: kubeconfigFile, namespace: NS, job_kind: 'TFJob' });
      const master = await sdk.call('get_job_logs', { name: JOB });
      expect(master.type).toBe('tuple[dict, dict]');
      expect(master.value).toEqual([{ [`${JOB}-worker-0`]: `TF_CONFIG=${tfConfig}\ndone\n` }, {}]);
      const all = await sdk.call('get_job_logs', { name: JOB, is_master: false });
      const [logs] = all.value as [Record<string, string>, unknown];
      expect(Object.keys(logs).sort()).toEqual([`${JOB}-ps-0`, `${JOB}-worker-0`, `${JOB}-worker-1`]);
      expect(logs[`${JOB}-ps-0`]).toContain('"task":{"type":"ps","index":0}');
      expect((await sdk.call('is_job_succeeded', { name: JOB })).value).toBe(true);

      // Foreground deletion through the SDK, as KFP does it: the job goes once its pods and services are gone.
      expect((await sdk.call('delete_job', { name: JOB, delete_options: { propagation_policy: 'Foreground' } })).value).toBeNull();
    } finally {
      await sdk.close();
    }
    await eventually('TFJob and dependents deleted', 180_000, async () => {
      const left = await kubectl('-n', NS, 'get', 'tfjob,pods,services', '-o', 'name');
      return left.trim() === '';
    });
  });
});
