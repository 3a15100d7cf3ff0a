// The Kubeflow training Python SDK (kubeflow-training 1.8.1, pinned in test/clients/requirements.txt)
// against the operator on the real local control plane, under both tf-operator-compatible placement and
// our own priority scheduling. Every step is one public TrainingClient call made by the SDK itself (via
// test/clients/sdk_driver.py); the test asserts what that call returned or raised. Pod completion is
// driven with kwok's exit-code annotation, as a kubelet would report a finished container.
//
// Pod logs: kwok plays the kubelet's log endpoint for pods that have a log file
// (test/support/pod-logs.ts); get_job_logs reads the master pod's log through pods/log as on a real
// cluster, and its events path (verbose=True) is asserted on a job whose pods are gone.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { clusterState, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog } from '../../support/pod-logs.ts';
import { getTFJob, type TestTFJob } from '../../support/tfjob.ts';
import { CLIENTS_DIR, SdkDriver } from './python.ts';

interface SdkPod {
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    containers: { name: string; image: string; command?: string[]; args?: string[]; env?: { name: string; value?: string }[] }[];
    nodeName?: string;
  };
  status?: { phase?: string };
}

const POLICIES = ['tf-operator', 'ours'] as const;

describe.each(POLICIES)('Kubeflow training SDK 1.8.1 (--policy %s)', (policy) => {
  let ns: string;
  let operator: Operator;
  let sdk: SdkDriver;

  /** get_job_pod_names with the given filters, sorted. */
  async function podNames(name: string, filters: Record<string, unknown> = {}): Promise<string[]> {
    const { type, value } = await sdk.call('get_job_pod_names', { name, ...filters });
    expect(type).toMatch(/^list(\[str\])?$/);
    return [...(value as string[])].sort();
  }

  async function conditions(name: string): Promise<string[]> {
    const { type, value } = await sdk.call('get_job_conditions', { name });
    expect(type).toMatch(/^list(\[KubeflowOrgV1JobCondition\])?$/);
    return (value as { type: string; status: string }[]).map((c) => `${c.type}=${c.status}`);
  }

  async function flags(name: string): Promise<Record<string, boolean>> {
    const out: Record<string, boolean> = {};
    for (const state of ['created', 'running', 'restarting', 'succeeded', 'failed']) {
      const { type, value } = await sdk.call(`is_job_${state}`, { name });
      expect(type).toBe('bool');
      out[state] = value as boolean;
    }
    return out;
  }

  async function waitFor(
    name: string,
    expected: string[] | undefined,
    extra: Record<string, unknown> = {},
  ): Promise<{ job: TestTFJob; saw: string[][] }> {
    const { type, value, callbackSaw } = await sdk.call(
      'wait_for_job_conditions',
      {
        name,
        ...(expected === undefined ? {} : { expected_conditions: expected }),
        wait_timeout: 90,
        polling_interval: 1,
        record_callback: true,
        ...extra,
      },
      { timeoutMs: 110_000 },
    );
    expect(type).toBe('KubeflowOrgV1TFJob');
    return { job: value as TestTFJob, saw: callbackSaw };
  }

  /**
   * update_job as the upstream e2e test uses it: get_job, change the model, update_job(job, name). The
   * SDK sends back the resourceVersion get_job returned, so a status write by the operator in between
   * is a 409 Conflict (with tf-operator too); callers retry, and so does this helper, on 409 only.
   */
  async function updateJob(name: string, set: [string[], unknown][]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const reply = await sdk.request('update', { name, set });
      if (reply.ok) {
        expect(reply).toMatchObject({ type: 'NoneType', value: null });
        return;
      }
      if (attempt >= 5 || !(reply.error.cause ?? '').includes('(409)')) {
        throw new Error(
          `update_job ${name} ${JSON.stringify(set)} raised ${reply.error.type}: ${reply.error.message} (${String(reply.error.cause)})`,
        );
      }
    }
  }

  beforeAll(async () => {
    // Creates the pinned venv on a fresh machine (pip progress is printed); later runs reuse it.
    sdk = await SdkDriver.start();
    ns = await createNamespace(`sdk-${policy}`);
    operator = await startOperator(ns, ['--policy', policy]);
    const init = await sdk.ok('init', { config_file: clusterState().kubeconfig, namespace: ns, job_kind: 'TFJob' });
    expect(init.value).toEqual({ namespace: ns, job_kind: 'TFJob' });
  });
  afterAll(async () => {
    await sdk.close();
    await operator.stop();
    await deleteNamespace(ns);
  });

  it('create_job(job=KubeflowOrgV1TFJob) → wait → getters → success → delete_job, as the upstream SDK e2e test does', async () => {
    const name = 'sdk-model';
    const created = await sdk.ok('create_from_models', { name, replicas: { PS: 1, Worker: 2 }, labels: { team: 'ml' } });
    expect(created).toMatchObject({ type: 'NoneType', value: null });

    // A second create of the same name is refused by the API server; the SDK wraps it.
    const dup = await sdk.fails('create_from_models', { name, replicas: { Worker: 1 } });
    expect(dup).toMatchObject({ type: 'RuntimeError', message: `Failed to create TFJob: ${ns}/${name}`, cause_type: 'ApiException' });
    expect(dup.cause).toContain('(409)');

    const running = await waitFor(name, ['Running']);
    expect(running.job.metadata.name).toBe(name);
    expect(running.job.status?.conditions?.at(-1)).toMatchObject({
      type: 'Running',
      status: 'True',
      reason: 'TFJobRunning',
      message: `TFJob ${ns}/${name} is running.`,
    });
    // The callback got the polled job every time; the last poll saw Running.
    expect(running.saw.length).toBeGreaterThan(0);
    expect(running.saw.at(-1)).toEqual(['Created=True', 'Running=True']);

    expect(await flags(name)).toEqual({ created: true, running: true, restarting: false, succeeded: false, failed: false });
    // The `job=` form of the is_job_* helpers, given the SDK's own get_job result.
    expect((await sdk.call('is_job_running', { job: { $fetch: name } })).value).toBe(true);

    // Running needs one running Worker; wait until every replica is counted active.
    const job = await eventually(
      async () => {
        const got = await sdk.call('get_job', { name });
        expect(got.type).toBe('KubeflowOrgV1TFJob');
        const j = got.value as TestTFJob;
        return isDeepStrictEqual(j.status?.replicaStatuses, { PS: { active: 1 }, Worker: { active: 2 } }) ? j : false;
      },
      { what: `${name}: 1 PS and 2 workers active` },
    );
    expect(job.metadata).toMatchObject({ name, namespace: ns });
    expect(job.spec).toMatchObject({
      runPolicy: { cleanPodPolicy: 'None' },
      tfReplicaSpecs: { PS: { replicas: 1, restartPolicy: 'Never' }, Worker: { replicas: 2 } },
    });
    expect(job.status?.startTime).toEqual(expect.any(String));
    if (policy === 'ours') {
      // Our status.scheduling is not in the SDK's model: the SDK drops it instead of failing.
      expect((await getTFJob(ns, name)).status?.scheduling).toMatchObject({ queue: 'Running' });
      expect(job.status).not.toHaveProperty('scheduling');
    }

    const conds = await sdk.call('get_job_conditions', { name });
    expect(conds.type).toBe('list[KubeflowOrgV1JobCondition]');
    expect(conds.value).toEqual([
      expect.objectContaining({ type: 'Created', status: 'True', reason: 'TFJobCreated', message: `TFJob ${name} is created.` }),
      expect.objectContaining({ type: 'Running', status: 'True', reason: 'TFJobRunning' }),
    ]);

    expect(await podNames(name)).toEqual([`${name}-ps-0`, `${name}-worker-0`, `${name}-worker-1`]);
    expect(await podNames(name, { is_master: true })).toEqual([`${name}-worker-0`]);
    expect(await podNames(name, { replica_type: 'ps' })).toEqual([`${name}-ps-0`]);
    expect(await podNames(name, { replica_type: 'worker' })).toEqual([`${name}-worker-0`, `${name}-worker-1`]);
    // SDK 1.8.1 quirk: its docstring names `Chief`/`PS`, but only lower-case replica types pass its check.
    expect(await sdk.callFails('get_job_pod_names', { name, replica_type: 'Worker' })).toMatchObject({ type: 'ValueError' });
    expect(await podNames(name, { replica_type: 'worker', replica_index: 1 })).toEqual([`${name}-worker-1`]);
    expect(await podNames(name, { replica_type: 'worker', replica_index: 7 })).toEqual([]);

    const pods = await sdk.call('get_job_pods', { name, is_master: true });
    expect(pods.type).toBe('list[V1Pod]');
    const [master] = pods.value as SdkPod[];
    expect(master?.metadata.labels).toMatchObject({
      'training.kubeflow.org/job-role': 'master',
      'training.kubeflow.org/replica-type': 'worker',
      'training.kubeflow.org/replica-index': '0',
    });
    expect(master?.status?.phase).toBe('Running');
    const tfConfig = JSON.parse(
      master?.spec.containers.find((c) => c.name === 'tensorflow')?.env?.find((e) => e.name === 'TF_CONFIG')?.value ?? '{}',
    ) as unknown;
    expect(tfConfig).toEqual({
      cluster: { ps: [`${name}-ps-0.${ns}.svc:2222`], worker: [`${name}-worker-0.${ns}.svc:2222`, `${name}-worker-1.${ns}.svc:2222`] },
      task: { type: 'worker', index: 0 },
      environment: 'cloud',
    });

    const list = await sdk.call('list_jobs', {});
    expect(list.type).toBe('list[KubeflowOrgV1TFJob]');
    expect((list.value as TestTFJob[]).map((j) => j.metadata.name)).toContain(name);

    // Logs: the SDK picks the master pod and reads its `tensorflow` container through pods/log.
    const served = await servePodLog(ns, `${name}-worker-0`);
    served.write(['hello from worker 0', 'step 1 done']);
    const podLogs = await eventually(
      async () => {
        // Until kwok has seen the log file's object, the read fails and the SDK raises.
        const logs = await sdk.call('get_job_logs', { name }).catch(() => undefined);
        if (logs === undefined) return false;
        expect(logs.type).toBe('tuple[dict, dict]');
        return (logs.value as [Record<string, string>, unknown])[0];
      },
      { timeoutMs: 30_000, what: 'get_job_logs to return the log' },
    );
    expect(podLogs).toEqual({ [`${name}-worker-0`]: 'hello from worker 0\nstep 1 done\n' });
    // A pod without a log file: the read fails and the SDK raises, naming the pod.
    const failed = await sdk.callFails('get_job_logs', { name, is_master: false, replica_type: 'ps' });
    expect(failed).toMatchObject({
      type: 'RuntimeError',
      message: `Failed to read logs for pod ${ns}/${name}-ps-0`,
      cause_type: 'ApiException',
    });

    await exitPod(ns, `${name}-worker-0`, 0);
    const done = await waitFor(name, undefined); // the default: Succeeded
    // The upstream e2e assertions (sdk/python/test/e2e/test_e2e_tfjob.py, compat §5.2).
    const final = done.job.status?.conditions ?? [];
    expect(final.length).toBeGreaterThanOrEqual(2);
    expect(final.map((c) => `${c.type}=${c.status}`)).toEqual(['Created=True', 'Running=False', 'Succeeded=True']);
    expect(final.at(-1)).toMatchObject({ reason: 'TFJobSucceeded', message: `TFJob ${ns}/${name} successfully completed.` });
    expect(done.job.status?.completionTime).toEqual(expect.any(String));
    expect(await flags(name)).toEqual({ created: true, running: false, restarting: false, succeeded: true, failed: false });
    // cleanPodPolicy None: every pod stays after success.
    expect(await podNames(name)).toHaveLength(3);

    expect(await sdk.call('delete_job', { name })).toMatchObject({ type: 'NoneType', value: null });
    const gone = await sdk.callFails('get_job', { name });
    expect(gone).toMatchObject({ type: 'RuntimeError', message: `Failed to get TFJob: ${ns}/${name}` });
    expect(gone.cause).toContain('(404)');
    // Background deletion: the garbage collector removes the pods through their owner references.
    await eventually(async () => (await podNames(name)).length === 0, { what: `pods of ${name} garbage-collected`, timeoutMs: 60_000 });
  });

  it('create_job from a YAML manifest; a failed Chief makes the waits raise or return as the SDK documents; get_job_logs(verbose) returns the job events', async () => {
    const name = 'sdk-yaml';
    expect(await sdk.ok('create_from_yaml', { path: `${CLIENTS_DIR}/manifests/tfjob-chief.yaml`, name })).toMatchObject({
      type: 'NoneType',
      value: null,
    });
    await waitFor(name, ['Running']);
    expect(await podNames(name, { is_master: true })).toEqual([`${name}-chief-0`]);
    expect(await podNames(name, { replica_type: 'chief' })).toEqual([`${name}-chief-0`]);
    expect(await podNames(name)).toEqual([`${name}-chief-0`, `${name}-ps-0`, `${name}-worker-0`, `${name}-worker-1`]);

    await exitPod(ns, `${name}-chief-0`, 1);
    // Waiting for Succeeded raises as soon as the job is Failed.
    const raised = await sdk.callFails('wait_for_job_conditions', { name, wait_timeout: 90, polling_interval: 1 }, { timeoutMs: 110_000 });
    expect(raised.type).toBe('RuntimeError');
    expect(raised.message).toContain(`TFJob ${ns}/${name} is Failed.`);
    // Waiting for Failed returns the job.
    const failed = await waitFor(name, ['Failed']);
    expect(failed.job.status?.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      status: 'True',
      reason: 'TFJobFailed',
      message: `TFJob ${ns}/${name} has failed because 1 Chief replica(s) failed.`,
    });
    expect(await flags(name)).toEqual({ created: true, running: false, restarting: false, succeeded: false, failed: true });
    expect(await conditions(name)).toEqual(['Created=True', 'Running=False', 'Failed=True']);

    // cleanPodPolicy All: every pod is deleted once the job has failed.
    await eventually(async () => (await podNames(name)).length === 0, { what: `pods of ${name} cleaned up`, timeoutMs: 60_000 });
    // With no pod left there are no logs to read; verbose=True adds the job's events, which the SDK
    // selects by involvedObject kind "TFJob" and name.
    const logs = await sdk.call('get_job_logs', { name, verbose: true });
    expect(logs.type).toBe('tuple[dict, dict]');
    const [podLogs, events] = logs.value as [Record<string, string>, Record<string, string[]>];
    expect(podLogs).toEqual({});
    const jobEvents = events[`tfjob/${name}`] ?? [];
    expect(jobEvents.some((e) => e.endsWith(`Created pod: ${name}-chief-0`))).toBe(true);
    expect(jobEvents.some((e) => e.endsWith(`Created service: ${name}-worker-1`))).toBe(true);
    expect(jobEvents.some((e) => e.endsWith(`TFJob ${ns}/${name} has failed because 1 Chief replica(s) failed.`))).toBe(true);

    expect(await sdk.call('delete_job', { name, delete_options: { propagation_policy: 'Foreground' } })).toMatchObject({ value: null });
    // Foreground: the job disappears once the garbage collector has removed its services (pods are gone).
    await eventually(
      async () => {
        const reply = await sdk.request('call', { method: 'get_job', kwargs: { name } });
        return !reply.ok && (reply.error.cause ?? '').includes('(404)');
      },
      { what: `${name} deleted`, timeoutMs: 60_000 },
    );
  });

  it('create_job(base_image, num_chief/ps/workers) builds a TFJob the operator runs; update_job scales it and suspends/resumes it', async () => {
    const name = 'sdk-image';
    const created = await sdk.ok('create_from_image', {
      name,
      base_image: 'docker.io/tensorflow/tensorflow:2.9.1',
      num_workers: 2,
      num_ps_replicas: 1,
      num_chief_replicas: 1,
      resources_per_worker: { cpu: '100m', memory: '64Mi' },
    });
    expect(created.value).toBeNull();
    await waitFor(name, ['Running']);
    const job = (await sdk.call('get_job', { name })).value as TestTFJob;
    expect(Object.keys(job.spec.tfReplicaSpecs as Record<string, unknown>).sort()).toEqual(['Chief', 'PS', 'Worker']);
    expect(await podNames(name)).toEqual([`${name}-chief-0`, `${name}-ps-0`, `${name}-worker-0`, `${name}-worker-1`]);
    expect(await podNames(name, { is_master: true })).toEqual([`${name}-chief-0`]);
    const chief = ((await sdk.call('get_job_pods', { name, replica_type: 'chief' })).value as SdkPod[])[0];
    expect(JSON.parse(chief?.spec.containers[0]?.env?.find((e) => e.name === 'TF_CONFIG')?.value ?? '{}')).toEqual({
      cluster: {
        chief: [`${name}-chief-0.${ns}.svc:2222`],
        ps: [`${name}-ps-0.${ns}.svc:2222`],
        worker: [`${name}-worker-0.${ns}.svc:2222`, `${name}-worker-1.${ns}.svc:2222`],
      },
      task: { type: 'chief', index: 0 },
      environment: 'cloud',
    });

    await updateJob(name, [[['spec', 'tf_replica_specs', 'Worker', 'replicas'], 3]]);
    await eventually(
      async () => {
        const names = await podNames(name, { replica_type: 'worker' });
        return names.join() === [0, 1, 2].map((i) => `${name}-worker-${i}`).join();
      },
      { what: `${name} scaled to 3 workers`, timeoutMs: 60_000 },
    );
    await eventually(async () => ((await sdk.call('get_job', { name })).value as TestTFJob).status?.replicaStatuses?.Worker?.active === 3, {
      what: `${name} status at 3 active workers`,
    });

    await updateJob(name, [[['spec', 'run_policy', 'suspend'], true]]);
    await eventually(async () => (await conditions(name)).includes('Suspended=True'), { what: `${name} suspended`, timeoutMs: 60_000 });
    expect((await sdk.call('is_job_running', { name })).value).toBe(false);
    // SDK 1.8.1 has no Suspended in its condition set: it refuses to wait for it (read it with get_job_conditions).
    expect(
      await sdk.callFails('wait_for_job_conditions', { name, expected_conditions: ['Suspended'], wait_timeout: 5, polling_interval: 1 }),
    ).toMatchObject({ type: 'ValueError' });
    await eventually(async () => (await podNames(name)).length === 0, { what: `pods of suspended ${name} deleted`, timeoutMs: 60_000 });

    await updateJob(name, [[['spec', 'run_policy', 'suspend'], false]]);
    const resumed = await waitFor(name, ['Running']);
    expect(resumed.job.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Created=True',
      'Suspended=False',
      'Running=True',
    ]);
    await eventually(async () => (await podNames(name)).length === 5, { what: `${name} pods back after resume`, timeoutMs: 60_000 });

    await exitPod(ns, `${name}-chief-0`, 0);
    const done = await waitFor(name, ['Succeeded', 'Failed']);
    expect(done.job.status?.conditions?.at(-1)).toMatchObject({ type: 'Succeeded', status: 'True' });
    expect(await sdk.call('delete_job', { name })).toMatchObject({ value: null });
  });

  it('create_job(train_func) ships the function in the pod command of a single-worker TFJob', async () => {
    const name = 'sdk-func';
    expect((await sdk.ok('create_from_func', { name, num_workers: 1, parameters: { lr: 0.1 } })).value).toBeNull();
    await waitFor(name, ['Running']);
    const [pod] = (await sdk.call('get_job_pods', { name })).value as SdkPod[];
    const container = pod?.spec.containers.find((c) => c.name === 'tensorflow');
    // The SDK's default TFJob image and its bash wrapper around the function's source.
    expect(container?.image).toBe('docker.io/tensorflow/tensorflow:2.9.1');
    expect(container?.command).toEqual(['bash', '-c']);
    expect(container?.args?.[0]).toContain('def train_func(parameters');
    expect(container?.args?.[0]).toContain("train_func({'lr': 0.1})");
    // Not distributed: no TF_CONFIG (tf-operator's rule for a single replica).
    expect(container?.env?.some((e) => e.name === 'TF_CONFIG') ?? false).toBe(false);
    await exitPod(ns, `${name}-worker-0`, 0);
    await waitFor(name, ['Succeeded']);
    expect((await sdk.call('is_job_succeeded', { name })).value).toBe(true);
    expect(await sdk.call('delete_job', { name })).toMatchObject({ value: null });
  });

  it('TrainingClient() with the default kind (PyTorchJob) reaches TFJobs through job_kind="TFJob" on each call', async () => {
    const name = 'sdk-kind';
    expect((await sdk.ok('init', { as: 'pt', config_file: clusterState().kubeconfig, namespace: ns })).value).toEqual({
      namespace: ns,
      job_kind: 'PyTorchJob',
    });
    expect((await sdk.ok('create_from_models', { client: 'pt', name, replicas: { Worker: 1 } })).value).toBeNull();
    await waitFor(name, ['Running']);
    const got = await sdk.call('get_job', { name, job_kind: 'TFJob' }, { client: 'pt' });
    expect(got.type).toBe('KubeflowOrgV1TFJob');
    expect((await sdk.call('is_job_running', { name, job_kind: 'TFJob' }, { client: 'pt' })).value).toBe(true);
    expect(
      ((await sdk.call('list_jobs', { job_kind: 'TFJob' }, { client: 'pt' })).value as TestTFJob[]).map((j) => j.metadata.name),
    ).toContain(name);
    // Without job_kind the client asks for PyTorchJobs, which this cluster does not serve.
    const wrongKind = await sdk.callFails('get_job', { name }, { client: 'pt' });
    expect(wrongKind).toMatchObject({ type: 'RuntimeError', message: `Failed to get PyTorchJob: ${ns}/${name}` });
    // SDK 1.8.1 limitation (not the operator's): wait_for_job_conditions fetches the TFJob with the given
    // job_kind but checks it with get_job_conditions(job=...) under the client's kind, which rejects the
    // TFJob model. Waiting on a TFJob needs TrainingClient(job_kind="TFJob").
    const wait = await sdk.callFails(
      'wait_for_job_conditions',
      { name, job_kind: 'TFJob', expected_conditions: ['Running'], wait_timeout: 5, polling_interval: 1 },
      { client: 'pt' },
    );
    expect(wait.type).toBe('ValueError');
    expect(wait.message).toMatch(/^Job must be one of these types: \('KubeflowOrgV1TFJob', 'KubeflowOrgV1PyTorchJob'/);
    expect(await sdk.call('delete_job', { name, job_kind: 'TFJob' }, { client: 'pt' })).toMatchObject({ value: null });
  });
});
