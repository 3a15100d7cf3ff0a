// Kubeflow Pipelines' TFJob launcher against the operator (compat §8): the launcher's exact API
// traffic, reproduced by test/clients/kfp_tfjob_launcher.py with the pinned Kubernetes Python client.
// It writes legacy top-level spec fields (pruned by the structural CRD), waits for conditions[-1] to
// be Succeeded/Failed with status True, then deletes the TFJob with propagationPolicy Foreground. The
// test checks that the job runs with the default policies despite those fields, and that the Foreground
// deletion completes only after every pod and service is gone (owner references with
// blockOwnerDeletion), with no dependent recreated meanwhile and nothing left behind.
import { setTimeout as sleep } from 'node:timers/promises';
import { PatchStrategy, setHeaderOptions, Watch, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, apiStatus, clusterState, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { coreApi, customApi, eventReasons, getTFJob, jobPods, waitForPods, type TestTFJob } from '../../support/tfjob.ts';
import { runPythonScript, type PythonRun } from './python.ts';

const HOLD = 'tfjob-test.kubeflow.org/hold';

function replica(replicas: number, restartPolicy: string): string {
  return JSON.stringify({
    replicas,
    restartPolicy,
    template: {
      spec: {
        containers: [
          { name: 'tensorflow', image: 'docker.io/tensorflow/tensorflow:2.9.1', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
        ],
      },
    },
  });
}

interface Recorded {
  type: string;
  name: string;
  uid: string;
  at: number;
}

/** Records ADDED/DELETED events of the namespace's pods and services labelled with the job name. */
async function recordDependents(namespace: string, job: string): Promise<{ events: Recorded[]; stop: () => void }> {
  const events: Recorded[] = [];
  const watch = new Watch(adminKubeConfig());
  const controllers = await Promise.all(
    ['pods', 'services'].map((plural) =>
      watch.watch(
        `/api/v1/namespaces/${namespace}/${plural}`,
        { labelSelector: `training.kubeflow.org/job-name=${job}` },
        (type: string, obj: V1Pod | V1Service) => {
          events.push({ type: `${plural}:${type}`, name: obj.metadata?.name ?? '', uid: obj.metadata?.uid ?? '', at: Date.now() });
        },
        () => undefined,
      ),
    ),
  );
  return {
    events,
    stop: () => {
      for (const c of controllers) c.abort();
    },
  };
}

async function dependents(namespace: string, job: string): Promise<string[]> {
  const selector = `training.kubeflow.org/job-name=${job}`;
  const [pods, services] = await Promise.all([
    coreApi().listNamespacedPod({ namespace, labelSelector: selector }),
    coreApi().listNamespacedService({ namespace, labelSelector: selector }),
  ]);
  return [
    ...pods.items.map((p) => `pod/${p.metadata?.name ?? ''}`),
    ...services.items.map((s) => `service/${s.metadata?.name ?? ''}`),
  ].sort();
}

async function tfjobGone(namespace: string, name: string): Promise<boolean> {
  try {
    await getTFJob(namespace, name);
    return false;
  } catch (err) {
    if (apiStatus(err) === 404) return true;
    throw err;
  }
}

function launcherArgs(namespace: string, name: string, specs: Record<string, string>, legacy: string[]): string[] {
  return [
    '--name',
    name,
    '--namespace',
    namespace,
    '--kubeconfig',
    clusterState().kubeconfig,
    '--pollingIntervalSeconds',
    '1',
    '--tfjobTimeoutMinutes',
    '3',
    ...Object.entries(specs).flatMap(([flag, spec]) => [`--${flag}`, spec]),
    ...legacy,
  ];
}

describe.each(['tf-operator', 'ours'] as const)('KFP TFJob launcher (--policy %s)', (policy) => {
  let ns: string;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace(`kfp-${policy}`);
    operator = await startOperator(ns, ['--policy', policy]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
  });

  it('runs a Chief/PS/Worker/Evaluator job written with legacy top-level fields, waits for conditions[-1] and deletes it in the foreground', async () => {
    const name = 'kfp-mnist';
    const specs = {
      chiefSpec: replica(1, 'OnFailure'),
      psSpec: replica(1, 'OnFailure'),
      workerSpec: replica(2, 'OnFailure'),
      evaluatorSpec: replica(1, 'OnFailure'),
    };
    // If any of these were honoured the job would end differently: a 1 s deadline would fail it, a 0 s
    // TTL would delete it under the launcher, cleanPodPolicy Running would delete the running pods.
    const legacy = ['--cleanPodPolicy', 'Running', '--ttlSecondsAfterFinished', '0', '--backoffLimit', '0', '--activeDeadlineSeconds', '1'];
    const args = launcherArgs(ns, name, specs, legacy);

    // What the launcher sends, checked against strict field validation (what `kubectl apply` uses by
    // default): the API server names the legacy fields. The launcher sends no fieldValidation, so its
    // create is accepted and the fields are pruned.
    const printed = await runPythonScript('kfp_tfjob_launcher.py', [...args, '--print-manifest']);
    expect(printed.code).toBe(0);
    const manifest = JSON.parse(printed.stdout) as TestTFJob;
    expect(manifest.spec).toMatchObject({
      cleanPodPolicy: 'Running',
      ttlSecondsAfterFinished: 0,
      backoffLimit: 0,
      activeDeadlineSecond: 1,
    });
    const strict = await customApi()
      .createNamespacedCustomObject({
        group: 'kubeflow.org',
        version: 'v1',
        plural: 'tfjobs',
        namespace: ns,
        body: manifest,
        dryRun: 'All',
        fieldValidation: 'Strict',
      })
      .then(
        () => 'accepted',
        (err: unknown) => String((err as { body?: unknown }).body),
      );
    for (const field of ['cleanPodPolicy', 'ttlSecondsAfterFinished', 'backoffLimit', 'activeDeadlineSecond'])
      expect(strict).toContain(`unknown field \\"spec.${field}\\"`);

    const recorder = await recordDependents(ns, name);
    let launcher: Promise<PythonRun> | undefined;
    try {
      let deletedAt = 0;
      launcher = runPythonScript('kfp_tfjob_launcher.py', args, {
        timeoutMs: 180_000,
        onRecord: (r) => {
          if (r.event === 'deleted') deletedAt = Date.now();
        },
      });
      const pods = await waitForPods(ns, name, 5);
      expect(pods.map((p) => p.metadata?.name)).toEqual([
        `${name}-chief-0`,
        `${name}-evaluator-0`,
        `${name}-ps-0`,
        `${name}-worker-0`,
        `${name}-worker-1`,
      ]);
      const stored = await getTFJob(ns, name);
      // Pruned: nothing but tfReplicaSpecs is left of the launcher's spec, so the defaults apply.
      expect(Object.keys(stored.spec)).toEqual(['tfReplicaSpecs']);
      expect(Object.keys(stored.spec.tfReplicaSpecs as Record<string, unknown>).sort()).toEqual(['Chief', 'Evaluator', 'PS', 'Worker']);
      // Every dependent is owned by the job with blockOwnerDeletion, which Foreground deletion relies on.
      const owned = [
        ...pods,
        ...(await coreApi().listNamespacedService({ namespace: ns, labelSelector: `training.kubeflow.org/job-name=${name}` })).items,
      ];
      expect(owned).toHaveLength(10);
      for (const o of owned) {
        expect(o.metadata?.ownerReferences).toEqual([
          { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name, uid: stored.metadata.uid, controller: true, blockOwnerDeletion: true },
        ]);
      }

      // Hold one pod with a finalizer, so the Foreground deletion has to wait for it.
      await coreApi().patchNamespacedPod(
        { name: `${name}-ps-0`, namespace: ns, body: { metadata: { finalizers: [HOLD] } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      // Longer than the legacy 1 s activeDeadlineSecond: still running, so it was not applied.
      await sleep(2_000);
      expect((await getTFJob(ns, name)).status?.conditions?.at(-1)).toMatchObject({ type: 'Running', status: 'True' });

      await exitPod(ns, `${name}-chief-0`, 0);
      const run = await launcher;
      expect(run.code, run.stderr).toBe(0);
      const events = run.records.map((r) => r.event);
      expect(events[0]).toBe('created');
      expect(events.slice(-2)).toEqual(['reached', 'deleted']);
      const reached = run.records.at(-2) as { condition: string; status: { conditions: { type: string; status: string }[] } };
      expect(reached.condition).toBe('Succeeded');
      expect(reached.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['Created=True', 'Running=False', 'Succeeded=True']);
      // The launcher saw the job go through Created/Running before the terminal condition.
      const seen = [...new Set(run.records.filter((r) => r.event === 'poll').map((r) => r.last))];
      expect(seen.at(-1)).toBe('Succeeded');
      expect(seen).toContain('Running');
      // The delete answer is the job, now carrying the foreground finalizer.
      const deleted = (run.records.at(-1) as { response: TestTFJob & { metadata: { finalizers?: string[]; deletionTimestamp?: string } } })
        .response;
      expect(deleted.metadata.deletionTimestamp).toEqual(expect.any(String));
      expect(deleted.metadata.finalizers).toContain('foregroundDeletion');

      // The garbage collector deletes every dependent; the held pod stays terminating, and so the job stays.
      await eventually(async () => (await dependents(ns, name)).join() === `pod/${name}-ps-0`, {
        what: 'all dependents but the held pod deleted',
        timeoutMs: 60_000,
      });
      const held = (await jobPods(ns, name))[0];
      expect(held?.metadata?.deletionTimestamp).toBeInstanceOf(Date);
      const waiting = (await getTFJob(ns, name)) as TestTFJob & { metadata: { finalizers?: string[]; deletionTimestamp?: string } };
      expect(waiting.metadata.deletionTimestamp).toEqual(expect.any(String));
      expect(waiting.metadata.finalizers).toEqual(['foregroundDeletion']);

      await coreApi().patchNamespacedPod(
        { name: `${name}-ps-0`, namespace: ns, body: { metadata: { finalizers: null } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually(async () => tfjobGone(ns, name), { what: `${name} deleted after its last dependent`, timeoutMs: 60_000 });
      expect(await dependents(ns, name)).toEqual([]);
      // The operator created nothing for the job while it was being deleted.
      expect(deletedAt).toBeGreaterThan(0);
      expect(recorder.events.filter((e) => e.type.endsWith(':ADDED') && e.at > deletedAt)).toEqual([]);
      expect(recorder.events.filter((e) => e.type.endsWith(':ADDED'))).toHaveLength(10);
      await eventually(async () => recorder.events.filter((e) => e.type.endsWith(':DELETED')).length === 10, {
        what: 'a DELETED event for each of the 10 dependents',
      });
      // Every pod was removed by the garbage collector, none by the operator (cleanPodPolicy is None).
      expect(await eventReasons(ns, name)).not.toContain('SuccessfulDeletePod');
    } finally {
      recorder.stop();
      await launcher?.catch(() => undefined);
      await coreApi()
        .patchNamespacedPod(
          { name: `${name}-ps-0`, namespace: ns, body: { metadata: { finalizers: null } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .catch(() => undefined);
    }
  });

  it('stops waiting when the job Failed and deletes it: nothing is left', async () => {
    const name = 'kfp-fail';
    const launcher = runPythonScript(
      'kfp_tfjob_launcher.py',
      launcherArgs(ns, name, { psSpec: replica(1, 'Never'), workerSpec: replica(2, 'Never') }, []),
      { timeoutMs: 180_000 },
    );
    await waitForPods(ns, name, 3);
    await exitPod(ns, `${name}-worker-1`, 3);
    const run = await launcher;
    expect(run.code, run.stderr).toBe(0);
    const reached = run.records.find((r) => r.event === 'reached') as
      { condition: string; status: { conditions: { type: string; status: string; message: string }[] } } | undefined;
    expect(reached?.condition).toBe('Failed');
    expect(reached?.status.conditions.at(-1)).toMatchObject({
      type: 'Failed',
      status: 'True',
      message: `TFJob ${ns}/${name} has failed because 1 Worker replica(s) failed.`,
    });
    expect(run.records.at(-1)?.event).toBe('deleted');
    await eventually(async () => (await tfjobGone(ns, name)) && (await dependents(ns, name)).length === 0, {
      what: `${name} and its dependents deleted`,
      timeoutMs: 60_000,
    });
  });
});
