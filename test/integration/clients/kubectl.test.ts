// The same life cycle as the SDK test, through `kubectl apply -f` of the manifests in
// test/clients/manifests/ (what users and CI scripts do), with the Kubeflow SDK reading the jobs that
// kubectl created. Also pins down one SDK 1.8.x limitation that is independent of the operator: a TFJob
// without spec.runPolicy cannot be read back by the SDK.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Operator } from '../../../src/operator/manager.ts';
import { clusterState, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { CLIENTS_DIR, SdkDriver } from './python.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kubectl(args: readonly string[], timeoutMs = 90_000): Promise<Run> {
  const s = clusterState();
  return new Promise((resolve) => {
    execFile(
      s.kubectl,
      [...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', KUBECONFIG: s.kubeconfig }, timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() });
      },
    );
  });
}

async function kubectlOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const r = await kubectl(args, timeoutMs);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

const MANIFEST = path.join(CLIENTS_DIR, 'manifests', 'tfjob-dist.yaml');
const NO_RUN_POLICY = path.join(CLIENTS_DIR, 'manifests', 'tfjob-no-runpolicy.yaml');

describe.each(['tf-operator', 'ours'] as const)('kubectl apply -f of the manifests (--policy %s)', (policy) => {
  let ns: string;
  let operator: Operator;
  let sdk: SdkDriver;
  let tmp: string;

  beforeAll(async () => {
    sdk = await SdkDriver.start();
    ns = await createNamespace(`kubectl-${policy}`);
    operator = await startOperator(ns, ['--policy', policy]);
    await sdk.ok('init', { config_file: clusterState().kubeconfig, namespace: ns, job_kind: 'TFJob' });
    tmp = await mkdtemp(path.join(tmpdir(), 'tfjob-kubectl-'));
  });
  afterAll(async () => {
    await sdk.close();
    await operator.stop();
    await deleteNamespace(ns);
    await rm(tmp, { recursive: true, force: true });
  });

  it('apply → wait → get (STATE column, conditions[-1]) → re-apply scaled → success → delete -f', async () => {
    const name = 'dist-mnist';
    expect(await kubectlOk(['apply', '-n', ns, '-f', MANIFEST])).toBe(`tfjob.kubeflow.org/${name} created`);
    expect(await kubectlOk(['wait', '-n', ns, '--for=condition=Running', `tfjob/${name}`, '--timeout=60s'])).toBe(
      `tfjob.kubeflow.org/${name} condition met`,
    );
    // The STATE printer column is the last condition's type, as with tf-operator.
    const row = (await kubectlOk(['get', 'tfjob', name, '-n', ns, '--no-headers'])).split(/\s+/);
    expect(row.slice(0, 2)).toEqual([name, 'Running']);
    expect(
      await kubectlOk([
        'get',
        '-n',
        ns,
        'pods',
        '-l',
        `training.kubeflow.org/job-name=${name},training.kubeflow.org/job-role=master`,
        '-o',
        'name',
      ]),
    ).toBe(`pod/${name}-worker-0`);
    expect(await kubectlOk(['get', '-n', ns, 'services', '-l', `training.kubeflow.org/job-name=${name}`, '-o', 'name'])).toBe(
      [`service/${name}-ps-0`, `service/${name}-worker-0`, `service/${name}-worker-1`].join('\n'),
    );

    // The SDK reads what kubectl created (the manifest has runPolicy, see the next test).
    expect((await sdk.call('is_job_running', { name })).value).toBe(true);
    expect((await sdk.call('get_job_pod_names', { name, is_master: true })).value).toEqual([`${name}-worker-0`]);

    // Re-applying the same file changes nothing; applying a larger Worker count scales the job.
    expect(await kubectlOk(['apply', '-n', ns, '-f', MANIFEST])).toBe(`tfjob.kubeflow.org/${name} unchanged`);
    const manifest = parseYaml(await readFile(MANIFEST, 'utf8')) as { spec: { tfReplicaSpecs: { Worker: { replicas: number } } } };
    manifest.spec.tfReplicaSpecs.Worker.replicas = 3;
    const scaled = path.join(tmp, `${name}-3.yaml`);
    await writeFile(scaled, stringifyYaml(manifest));
    expect(await kubectlOk(['apply', '-n', ns, '-f', scaled])).toBe(`tfjob.kubeflow.org/${name} configured`);
    await eventually(
      async () => {
        const pods = await kubectlOk([
          'get',
          '-n',
          ns,
          'pods',
          '-l',
          `training.kubeflow.org/job-name=${name},training.kubeflow.org/replica-type=worker`,
          '-o',
          'name',
        ]);
        return pods === [0, 1, 2].map((i) => `pod/${name}-worker-${i}`).join('\n');
      },
      { what: `${name} at 3 workers`, timeoutMs: 60_000 },
    );

    await exitPod(ns, `${name}-worker-0`, 0);
    expect(await kubectlOk(['wait', '-n', ns, '--for=condition=Succeeded', `tfjob/${name}`, '--timeout=60s'])).toBe(
      `tfjob.kubeflow.org/${name} condition met`,
    );
    expect(
      await kubectlOk(['get', 'tfjob', name, '-n', ns, '-o', 'jsonpath={.status.conditions[-1:].type}={.status.conditions[-1:].status}']),
    ).toBe('Succeeded=True');
    expect((await kubectlOk(['get', 'tfjob', name, '-n', ns, '--no-headers'])).split(/\s+/)[1]).toBe('Succeeded');
    const done = await sdk.call('wait_for_job_conditions', { name, wait_timeout: 30, polling_interval: 1 });
    expect(
      (done.value as { status: { conditions: { type: string; status: string }[] } }).status.conditions.map((c) => `${c.type}=${c.status}`),
    ).toEqual(['Created=True', 'Running=False', 'Succeeded=True']);

    expect(await kubectlOk(['delete', '-n', ns, '-f', scaled, '--wait=true'])).toBe(
      `tfjob.kubeflow.org "${name}" deleted from ${ns} namespace`,
    );
    const missing = await kubectl(['get', 'tfjob', name, '-n', ns]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NotFound');
    await eventually(
      async () =>
        (await kubectlOk(['get', '-n', ns, 'pods,services', '-l', `training.kubeflow.org/job-name=${name}`, '-o', 'name'])) === '',
      { what: `${name} dependents garbage-collected`, timeoutMs: 60_000 },
    );
  });

  it('kubectl apply --server-side: re-applying a changed manifest meets no field conflict, because only kubectl owns spec', async () => {
    const name = 'ssa-mnist';
    const manifest = parseYaml(await readFile(MANIFEST, 'utf8')) as {
      metadata: { name: string };
      spec: { tfReplicaSpecs: { Worker: { replicas: number } } };
    };
    manifest.metadata.name = name;
    const file = path.join(tmp, `${name}.yaml`);
    await writeFile(file, stringifyYaml(manifest));
    expect(await kubectlOk(['apply', '--server-side', '-n', ns, '-f', file])).toBe(`tfjob.kubeflow.org/${name} serverside-applied`);
    expect(await kubectlOk(['wait', '-n', ns, '--for=condition=Running', `tfjob/${name}`, '--timeout=60s'])).toBe(
      `tfjob.kubeflow.org/${name} condition met`,
    );
    manifest.spec.tfReplicaSpecs.Worker.replicas = 1;
    await writeFile(file, stringifyYaml(manifest));
    // Without --force-conflicts: any other field manager owning a spec field would make this fail.
    expect(await kubectlOk(['apply', '--server-side', '-n', ns, '-f', file])).toBe(`tfjob.kubeflow.org/${name} serverside-applied`);
    const managed = JSON.parse(
      await kubectlOk(['get', 'tfjob', name, '-n', ns, '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields}']),
    ) as { manager: string; operation: string; subresource?: string; fieldsV1?: Record<string, unknown> }[];
    const specOwners = managed.filter((m) => m.fieldsV1 !== undefined && 'f:spec' in m.fieldsV1).map((m) => `${m.manager}/${m.operation}`);
    expect(specOwners).toEqual(['kubectl/Apply']);
    // The operator writes status through the status subresource only.
    expect(managed.filter((m) => m.manager !== 'kubectl').every((m) => m.subresource === 'status')).toBe(true);
    await eventually(
      async () =>
        (await kubectlOk([
          'get',
          '-n',
          ns,
          'pods',
          '-l',
          `training.kubeflow.org/job-name=${name},training.kubeflow.org/replica-type=worker`,
          '-o',
          'name',
        ])) === `pod/${name}-worker-0`,
      { what: `${name} scaled down to 1 worker`, timeoutMs: 60_000 },
    );
    expect(await kubectlOk(['delete', '-n', ns, '-f', file])).toBe(`tfjob.kubeflow.org "${name}" deleted from ${ns} namespace`);
  });

  it('a TFJob without spec.runPolicy runs, but SDK 1.8.x cannot deserialize it until runPolicy is present', async () => {
    const name = 'minimal';
    expect(await kubectlOk(['apply', '-n', ns, '-f', NO_RUN_POLICY])).toBe(`tfjob.kubeflow.org/${name} created`);
    expect(await kubectlOk(['wait', '-n', ns, '--for=condition=Running', `tfjob/${name}`, '--timeout=60s'])).toBe(
      `tfjob.kubeflow.org/${name} condition met`,
    );
    // Like tf-operator (no mutating webhook, defaults applied in memory only), the operator leaves spec
    // alone; the SDK's KubeflowOrgV1TFJobSpec model requires run_policy, so reading the job raises.
    expect(await kubectlOk(['get', 'tfjob', name, '-n', ns, '-o', 'jsonpath={.spec.runPolicy}'])).toBe('');
    const get = await sdk.callFails('get_job', { name });
    expect(get).toMatchObject({
      type: 'RuntimeError',
      message: `Failed to get TFJob: ${ns}/${name}`,
      cause_type: 'ValueError',
      cause: 'Invalid value for `run_policy`, must not be `None`',
    });
    // One such job makes list_jobs fail for the whole namespace.
    expect(await sdk.callFails('list_jobs', {})).toMatchObject({
      type: 'RuntimeError',
      message: `Failed to list TFJobs in namespace: ${ns}`,
    });
    // The pod getters do not read the job, so they work.
    expect((await sdk.call('get_job_pod_names', { name })).value).toEqual([`${name}-worker-0`]);
    // Workaround: an empty runPolicy (the SDK's own builders always write one).
    await kubectlOk(['patch', 'tfjob', name, '-n', ns, '--type=merge', '-p', '{"spec":{"runPolicy":{}}}']);
    expect((await sdk.call('is_job_running', { name })).value).toBe(true);
    await exitPod(ns, `${name}-worker-0`, 0);
    expect((await sdk.call('wait_for_job_conditions', { name, wait_timeout: 60, polling_interval: 1 })).type).toBe('KubeflowOrgV1TFJob');
    expect(await kubectlOk(['delete', '-n', ns, '-f', NO_RUN_POLICY])).toBe(`tfjob.kubeflow.org "${name}" deleted from ${ns} namespace`);
  });
});
