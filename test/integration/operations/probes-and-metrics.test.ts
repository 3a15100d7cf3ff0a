// What an admin observes over HTTP, on the ports the Deployment probes and Prometheus scrapes:
// - /healthz answers as soon as the process serves; /readyz only once the caches are synced and, on
//   the leader, the scheduler has completed a pass (a standby with synced caches is ready);
// - /metrics serves even while not ready, and after a workload with preemption, scale-out, success,
//   TTL deletion, a restart and a failure it has every family the issue names: tf-operator's job
//   counters with their labels, controller-runtime's reconcile and work-queue metrics, leader
//   election, and ours (queue lengths, weights, preemptions, scale-outs, pass duration, time in queue).
import { CoreV1Api, SchedulingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../../lab/local-cluster/ports.ts';
import { loadConfig } from '../../../src/operator/config.ts';
import { Operator } from '../../../src/operator/manager.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import {
  adminKubeConfig,
  clusterState,
  createNamespace,
  deleteNamespace,
  eventually,
  exitPod,
  kubeConfigForToken,
  uniqueName,
} from '../../support/kube.ts';
import { createTFJob, getTFJob, jobPods, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';
import { parseMetrics, sumOf } from '../../support/prometheus.ts';
import { createNodePool, installOperatorRbac, onPool, serviceAccountToken, type NodePool, type OperatorRbac } from '../install/helpers.ts';

const LEASE = 'tfjob-operator.kubeflow.org';

interface Served {
  readonly operator: Operator;
  readonly metrics: number;
  readonly health: number;
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

/** Polls for `ms` and returns every /readyz answer seen (a state must hold, not just flash by). */
async function readyzFor(
  port: number,
  ms: number,
  leading: () => boolean = () => true,
): Promise<{ status: number; body: string; leading: boolean }[]> {
  const seen: { status: number; body: string; leading: boolean }[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const before = leading();
    const r = await get(port, '/readyz');
    // Leading throughout the request, or not known to be.
    seen.push({ ...r, leading: before && leading() });
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

describe('health probes and metrics', () => {
  let ns: string;
  let pool: NodePool;
  let rbac: OperatorRbac | undefined;
  let token: KubeConfig;
  const prefix = uniqueName('probe');
  const highClass = uniqueName('probe-high');
  const started: Served[] = [];

  async function serve(identity: string, flags: readonly string[] = []): Promise<Served> {
    const [metrics, health] = (await freePorts(2)) as [number, number];
    const { config } = loadConfig({
      argv: [
        '--namespace',
        ns,
        '--policy',
        'ours',
        ...pool.operatorFlags,
        '--leader-elect',
        '--leader-election-namespace',
        ns,
        '--identity',
        identity,
        '--leader-election-lease-duration',
        '6s',
        '--leader-election-renew-deadline',
        '4s',
        '--leader-election-retry-period',
        '500ms',
        '--metrics-bind-address',
        `127.0.0.1:${metrics}`,
        '--health-probe-bind-address',
        `127.0.0.1:${health}`,
        ...flags,
      ],
      env: {},
    });
    const operator = new Operator(config, {
      kubeConfig: token,
      logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', destination: process.stderr }),
    });
    const s = { operator, metrics, health };
    started.push(s);
    return s;
  }

  beforeAll(async () => {
    ns = await createNamespace('probes');
    pool = await createNodePool('probes', 1, { cpu: '4', memory: '16Gi' });
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: highClass }, value: 1000, description: 'test: high' } });
    // The operator's ServiceAccount, but no role bound to it yet.
    await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: `${prefix}-tfjob-operator` } } });
    token = kubeConfigForToken(await serviceAccountToken(adminKubeConfig(), ns, `${prefix}-tfjob-operator`));
  });
  afterAll(async () => {
    for (const s of started) await s.operator.stop();
    await deleteNamespace(ns);
    await rbac?.cleanup();
    await pool.delete();
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .deletePriorityClass({ name: highClass })
      .catch(() => undefined);
  });

  let first: Served;
  let second: Served;

  it('is live at once, but not ready while its caches cannot sync; /metrics says why', async () => {
    // This leader never runs a scheduling pass on its own (one debounce window is an hour).
    first = await serve('probe-first', ['--scheduling-debounce', '1h']);
    const starting = first.operator.start();
    await eventually(async () => (await get(first.health, '/healthz')).status === 200, { what: '/healthz' });
    expect((await get(first.health, '/healthz')).body).toContain('[+]ping ok');
    const seen = await readyzFor(first.health, 3_000);
    expect(seen.every((r) => r.status === 503)).toBe(true);
    expect(seen.at(-1)?.body).toContain('[-]caches failed: informer caches not synced');
    const samples = parseMetrics((await get(first.metrics, '/metrics')).body);
    expect(sumOf(samples, 'rest_client_requests_total', { code: '403' })).toBeGreaterThan(0);

    // Bind the shipped roles: the informers' retries now succeed and start() completes.
    const cluster = clusterState();
    rbac = await installOperatorRbac({
      kubectlPath: cluster.kubectl,
      kubeconfig: cluster.kubeconfig,
      admin: adminKubeConfig(),
      namespace: ns,
      prefix,
    });
    await starting;
    expect(first.operator.synced).toBe(true);
  });

  it('as the leader, stays unready until the scheduler has completed a pass', async () => {
    await eventually(
      async () => sumOf(parseMetrics((await get(first.metrics, '/metrics')).body), 'leader_election_master_status', { name: LEASE }) === 1,
      { what: 'first leading' },
    );
    // Only answers given while it led count: on a loaded machine its 4 s renew deadline can pass,
    // and a standby with synced caches is ready by design (next test).
    const seen = (await readyzFor(first.health, 2_000, () => first.operator.isLeader)).filter((r) => r.leading);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.status === 503)).toBe(true);
    expect(seen.at(-1)?.body).toContain('[+]caches ok');
    expect(seen.at(-1)?.body).toContain('[-]scheduler failed: scheduler has not completed a pass');
    expect(sumOf(parseMetrics((await get(first.metrics, '/metrics')).body), 'tfjob_operator_scheduling_pass_duration_seconds_count')).toBe(
      0,
    );
  });

  it('as a standby with synced caches, is ready; once leading, ready again after its first pass', async () => {
    second = await serve('probe-second');
    await second.operator.start();
    expect(second.operator.isLeader).toBe(false);
    expect((await get(second.health, '/readyz')).status).toBe(200);

    // A graceful stop of the leader hands over; its servers close.
    await first.operator.stop();
    await expect(get(first.health, '/healthz')).rejects.toThrow();
    await eventually(async () => second.operator.isLeader, { what: 'second leading' });
    await eventually(
      async () => {
        const r = await get(second.health, '/readyz');
        return r.status === 200 && r.body.includes('[+]scheduler ok');
      },
      { what: 'second ready as leader' },
    );
    expect(
      sumOf(parseMetrics((await get(second.metrics, '/metrics')).body), 'tfjob_operator_scheduling_pass_duration_seconds_count'),
    ).toBeGreaterThan(0);
  });

  it('exposes every metric family the issue names after jobs are preempted, scaled out, finished, deleted, restarted and failed', async () => {
    const requests = { cpu: '1', memory: '1Gi' };
    const light = onPool(
      tfjob('light', { Worker: 4 }, { resources: requests, restartPolicy: 'OnFailure', runPolicy: { cleanPodPolicy: 'Running' } }),
      pool,
    );
    light.spec.elasticPolicy = { minReplicas: 1, maxReplicas: 4 };
    await createTFJob(ns, light);
    await waitForPods(ns, 'light', 4);
    await createTFJob(
      ns,
      onPool(
        tfjob(
          'heavy',
          { Worker: 2 },
          {
            resources: requests,
            runPolicy: { cleanPodPolicy: 'Running', ttlSecondsAfterFinished: 0, schedulingPolicy: { priorityClass: highClass } },
          },
        ),
        pool,
      ),
    );
    await waitForPods(ns, 'heavy', 2);
    await exitPod(ns, 'heavy-worker-0', 0);
    await eventually(
      async () =>
        getTFJob(ns, 'heavy').then(
          () => false,
          () => true,
        ),
      { what: 'heavy deleted by TTL' },
    );
    await eventually(
      async () =>
        (await jobPods(ns, 'light')).filter((p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase === 'Running').length ===
        4,
      { timeoutMs: 60_000, what: 'light back to 4 workers' },
    );
    await exitPod(ns, 'light-worker-0', 0);
    await waitForCondition(ns, 'light', 'Succeeded');
    await eventually(
      async () => (await jobPods(ns, 'light')).every((p) => p.metadata?.deletionTimestamp !== undefined || p.status?.phase !== 'Running'),
      { what: 'light cleaned up' },
    );

    // A retryable exit restarts the worker; a permanent one fails the job.
    await createTFJob(ns, onPool(tfjob('flaky', { Worker: 1 }, { resources: requests, restartPolicy: 'ExitCode' }), pool));
    const [pod] = await waitForPods(ns, 'flaky', 1);
    await exitPod(ns, 'flaky-worker-0', 137);
    await eventually(
      async () => {
        const p = (await jobPods(ns, 'flaky'))[0];
        return p !== undefined && p.metadata?.uid !== pod?.metadata?.uid && p.status?.phase === 'Running';
      },
      { what: 'flaky-worker-0 recreated' },
    );
    await exitPod(ns, 'flaky-worker-0', 1);
    await waitForCondition(ns, 'flaky', 'Failed');

    const text = await eventually(
      async () => {
        const body = (await get(second.metrics, '/metrics')).body;
        // Counters move right after the status write, queue gauges at the next scheduling pass; wait
        // until the last of each has.
        const samples = parseMetrics(body);
        return sumOf(samples, 'training_operator_jobs_failed_total') === 1 &&
          sumOf(samples, 'tfjob_operator_queue_length', { queue: 'finished' }) === 2
          ? body
          : false;
      },
      { what: 'the failure counted' },
    );
    const s = parseMetrics(text);
    const job = { job_namespace: ns, framework: 'tensorflow' };
    // tf-operator's counters, with its labels.
    expect(sumOf(s, 'training_operator_jobs_created_total', job)).toBe(3);
    expect(sumOf(s, 'training_operator_jobs_successful_total', job)).toBe(2);
    expect(sumOf(s, 'training_operator_jobs_deleted_total', job)).toBe(1);
    expect(sumOf(s, 'training_operator_jobs_failed_total', job)).toBe(1);
    expect(sumOf(s, 'training_operator_jobs_restarted_total', job)).toBeGreaterThanOrEqual(1);
    // controller-runtime's reconcile and work-queue metrics.
    const controller = { controller: 'tfjob-controller' };
    expect(sumOf(s, 'controller_runtime_reconcile_total', { ...controller, result: 'success' })).toBeGreaterThan(0);
    expect(sumOf(s, 'controller_runtime_reconcile_time_seconds_count', controller)).toBeGreaterThan(0);
    expect(sumOf(s, 'controller_runtime_max_concurrent_reconciles', controller)).toBe(4);
    expect(s.some((x) => x.name === 'controller_runtime_active_workers' && x.labels.controller === 'tfjob-controller')).toBe(true);
    const queue = { name: 'tfjob-controller' };
    expect(sumOf(s, 'workqueue_adds_total', queue)).toBeGreaterThan(0);
    expect(sumOf(s, 'workqueue_queue_duration_seconds_count', queue)).toBeGreaterThan(0);
    expect(sumOf(s, 'workqueue_work_duration_seconds_count', queue)).toBeGreaterThan(0);
    for (const gauge of ['workqueue_depth', 'workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds']) {
      expect(
        s.some((x) => x.name === gauge && x.labels.name === 'tfjob-controller'),
        gauge,
      ).toBe(true);
    }
    expect(text).toContain('# TYPE workqueue_retries_total counter');
    expect(text).toContain('# TYPE controller_runtime_reconcile_errors_total counter');
    expect(sumOf(s, 'leader_election_master_status', { name: LEASE })).toBe(1);
    expect(sumOf(s, 'rest_client_requests_total', { code: '201' })).toBeGreaterThan(0);
    // Ours.
    const ours = { namespace: ns };
    for (const queueName of ['waiting', 'running', 'finished']) {
      expect(
        s.some((x) => x.name === 'tfjob_operator_queue_length' && x.labels.queue === queueName),
        queueName,
      ).toBe(true);
    }
    expect(sumOf(s, 'tfjob_operator_queue_length', { queue: 'finished' })).toBe(2);
    expect(
      s
        .filter((x) => x.name === 'tfjob_operator_job_weight' && x.labels.namespace === ns && x.labels.tfjob === 'light')
        .map((x) => x.value)
        .every((w) => w > 0 && w < 1),
    ).toBe(true);
    expect(s.some((x) => x.name === 'tfjob_operator_job_weight' && x.labels.tfjob === 'light')).toBe(true);
    expect(sumOf(s, 'tfjob_operator_preempted_workers_total', ours)).toBe(2);
    expect(sumOf(s, 'tfjob_operator_scaled_out_workers_total', ours)).toBeGreaterThanOrEqual(2);
    expect(sumOf(s, 'tfjob_operator_admissions_total', ours)).toBe(3);
    expect(sumOf(s, 'tfjob_operator_time_in_queue_seconds_count', ours)).toBe(3);
    expect(sumOf(s, 'tfjob_operator_scheduling_pass_duration_seconds_count')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE tfjob_operator_replacement_placements_total counter');
    expect(sumOf(s, 'tfjob_operator_informer_events_total', { event: 'list' })).toBeGreaterThan(0);
    // Process metrics, as every Prometheus client has them.
    expect(sumOf(s, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.some((x) => x.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });
});
