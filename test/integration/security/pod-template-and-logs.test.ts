// Pod templates pass through without added privileges, and no secret reaches the logs.
// The operator runs as a child process behind the fault proxy, which records exactly what it POSTs
// for each pod, and logs at trace level (the most it ever writes), with API errors injected for a
// while so that its error paths (which log API responses) run too. Its kubeconfig's bearer token
// and the job's secret-looking values are known, and searched for in every line it wrote.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy, type RecordedRequest } from '../../support/fault-proxy.ts';
import { scratchDir } from '../../support/fault-scenario.ts';
import { clusterState, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, jobPods, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';

const SECRET_ENV = `SECRET-VALUE-${uniqueName('s')}`;
const SECRET_ARG = `hunter2-${uniqueName('p')}`;

/** Fields that would give a pod more than its template asked for. */
const PRIVILEGED = [
  'privileged',
  'hostNetwork',
  'hostPID',
  'hostIPC',
  'hostPath',
  'capabilities',
  'allowPrivilegeEscalation',
  'procMount',
  'serviceAccountName',
  'automountServiceAccountToken',
  'runAsUser',
  'securityContext',
  'hostUsers',
];

describe('security: pod templates and logs', () => {
  let ns: string;
  let pool: Pool;
  let proxy: FaultProxy;
  let operator: OperatorChild;

  const template = () => ({
    metadata: { labels: { team: 'ml' }, annotations: { 'example.com/note': 'kept' } },
    spec: {
      containers: [
        {
          name: 'tensorflow',
          image: 'example.invalid/tf:2.15',
          args: ['--epochs=1', `--password=${SECRET_ARG}`],
          env: [
            { name: 'AWS_SECRET_ACCESS_KEY', value: SECRET_ENV },
            { name: 'PLAIN', value: 'x' },
          ],
          resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } },
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
      ],
      volumes: [{ name: 'scratch', emptyDir: {} }],
    },
  });

  beforeAll(async () => {
    ns = await createNamespace('sec-pods');
    pool = await createPool('secpod', 1, { cpu: '4', memory: '16Gi' });
    const s = clusterState();
    proxy = await FaultProxy.start({ upstream: s.server, caFile: s.caFile, seed: 9 });
    proxy.record((method, p) => method === 'POST' && p === `/api/v1/namespaces/${ns}/pods`);
    const kubeconfig = proxy.writeKubeconfig(path.join(scratchDir('sec-pods'), 'kubeconfig'), s.adminToken);
    operator = await OperatorChild.start('sec-pods', kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--log-level',
      'trace',
      ...pool.operatorFlags,
    ]);
    await operator.ready();
  });
  afterAll(async () => {
    await operator.kill();
    await proxy.close();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('creates each pod from its template with only the documented additions', async () => {
    const job = onPool(tfjob('rich', { PS: 1, Worker: 1 }, { restartPolicy: 'OnFailure' }), pool);
    const specs = job.spec.tfReplicaSpecs as Record<string, { template: ReturnType<typeof template> }>;
    for (const r of Object.values(specs)) {
      const placement = r.template.spec as Record<string, unknown>;
      r.template = template();
      // onPool's selector and toleration are part of the user's template too.
      Object.assign(r.template.spec, { nodeSelector: placement.nodeSelector, tolerations: placement.tolerations });
    }
    await createTFJob(ns, job);
    await waitForPods(ns, 'rich', 2);

    const posted = proxy.recorded.filter((r: RecordedRequest) => r.status === 201);
    expect(posted.map((r) => (JSON.parse(r.body) as { metadata: { name: string } }).metadata.name).sort()).toEqual([
      'rich-ps-0',
      'rich-worker-0',
    ]);
    for (const req of posted) {
      const pod = JSON.parse(req.body) as {
        metadata: Record<string, unknown>;
        spec: Record<string, unknown> & { containers: { env?: { name: string }[] }[] };
      };
      const type = String((pod.metadata.labels as Record<string, string>)['training.kubeflow.org/replica-type']);
      const tpl = specs[type === 'ps' ? 'PS' : 'Worker']!.template;
      // The spec is the template's, plus exactly: the node we chose, the replica restart policy,
      // TF_CONFIG appended to the tensorflow container's env, and tf-operator's default port
      // (tfjob-port 2222) on a tensorflow container that declares none.
      const { nodeName, restartPolicy, containers, ...rest } = pod.spec;
      const { containers: tplContainers, ...tplRest } = tpl.spec as Record<string, unknown> & { containers: Record<string, unknown>[] };
      expect(rest).toEqual(tplRest);
      expect(pool.nodes).toContain(nodeName);
      expect(restartPolicy).toBe('OnFailure');
      const [c] = containers as (Record<string, unknown> & { env?: { name: string }[] })[];
      const tplEnv = tplContainers[0]!.env as unknown[];
      expect({ ...c, env: c?.env?.slice(0, tplEnv.length) }).toEqual({
        ...tplContainers[0],
        ports: [{ name: 'tfjob-port', containerPort: 2222 }],
      });
      expect(c?.env?.slice(tplEnv.length).map((e) => e.name)).toEqual(['TF_CONFIG']);
      // Metadata: the template's labels and annotations kept, ours added, one owner (the job).
      expect(pod.metadata.labels).toMatchObject({ team: 'ml', 'training.kubeflow.org/job-name': 'rich' });
      expect(pod.metadata.annotations).toEqual({ 'example.com/note': 'kept', 'tfjob-operator.kubeflow.org/placed-by': 'ours' });
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'TFJob', name: 'rich', controller: true, blockOwnerDeletion: true }),
      ]);
      expect(pod.metadata.finalizers).toBeUndefined();
      for (const key of PRIVILEGED) expect(req.body, key).not.toContain(`"${key}"`);
    }
  });

  it('never logs a token or a secret value, even at trace level and on API errors', { timeout: 400_000 }, async () => {
    // Errors for a while: every failed call is logged with what the apiserver answered.
    proxy.setFailures({ fraction: 0.5, statuses: [500, 429], afterForwardFraction: 0.3 });
    await createTFJob(
      ns,
      onPool(
        tfjob(
          'second',
          { Worker: 1 },
          { restartPolicy: 'OnFailure', template: { containers: template().spec.containers, volumes: template().spec.volumes } },
        ),
        pool,
      ),
    );
    await sleep(8_000);
    proxy.setFailures(undefined);
    // Keys that failed often back off exponentially (up to minutes): allow for it.
    await eventually(async () => (await jobPods(ns, 'second')).some((p) => p.status?.phase === 'Running'), {
      what: 'second running',
      timeoutMs: 180_000,
    });
    await exitPod(ns, 'rich-worker-0', 0);
    await waitForCondition(ns, 'rich', 'Succeeded', { timeoutMs: 180_000 });
    await sleep(1_000);

    const text = operator.logs.join('\n');
    const messages = operator.messages();
    // The logs are the real thing: trace lines, and errors from the injected failures.
    expect(messages.some((m) => m.level === 'trace')).toBe(true);
    expect(messages.some((m) => m.level === 'error' || m.level === 'warn')).toBe(true);
    expect(messages.length).toBeGreaterThan(50);
    const token = clusterState().adminToken;
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(0, 16));
    expect(text).not.toContain(SECRET_ENV);
    expect(text).not.toContain(SECRET_ARG);
    expect(text).not.toMatch(/Bearer\s+\S/);
  });
});
