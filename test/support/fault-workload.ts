// The workload of the fault scenarios: a seeded mix of TFJobs (elastic PS+workers, fixed-size
// workers, some of a higher PriorityClass so preemption happens) arriving over time on a dedicated
// pool, and a driver that plays the training: once a job has run for its (seeded) time, its
// worker 0 exits 0, so without faults every job ends Succeeded. Faults must not change that.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LABEL_NODE_POOL } from '../../src/api/v1/constants.ts';
import { POD_EXIT_CODE_ANNOTATION } from '../../lab/local-cluster/index.ts';
import { isFinished, type TFJobLike } from './invariants.ts';
import { rng } from './prng.ts';
import type { TestTFJob } from './tfjob.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export interface WorkloadOptions {
  readonly seed: number;
  readonly count: number;
  /** Pool label value: jobs select its nodes and tolerate its taint. */
  readonly pool: string;
  /** PriorityClass for about a quarter of the jobs (none when undefined). */
  readonly highClass?: string;
  readonly namePrefix?: string;
}

export interface PlannedJob {
  readonly job: TestTFJob;
  /** How long the driver lets it run before worker 0 exits 0. */
  readonly runMs: number;
}

function template(requests: Record<string, string>, pool: string): Record<string, unknown> {
  return {
    spec: {
      containers: [{ name: 'tensorflow', image: 'example.invalid/tf:2.15', resources: { requests } }],
      nodeSelector: { [LABEL_NODE_POOL]: pool },
      tolerations: [{ key: LABEL_NODE_POOL, operator: 'Equal', value: pool, effect: 'NoSchedule' }],
    },
  };
}

/** `count` jobs, deterministic for a seed. */
export function planWorkload(opts: WorkloadOptions): PlannedJob[] {
  const r = rng(opts.seed);
  const out: PlannedJob[] = [];
  for (let i = 0; i < opts.count; i++) {
    const name = `${opts.namePrefix ?? 'job'}-${i}`;
    const cpu = r.pick(['500m', '1']);
    const cleanPodPolicy = r.pick(['All', 'Running']);
    const high = opts.highClass !== undefined && r.chance(0.25);
    const runPolicy: Record<string, unknown> = { cleanPodPolicy, ...(high ? { schedulingPolicy: { priorityClass: opts.highClass } } : {}) };
    let spec: Record<string, unknown>;
    if (r.chance(0.6)) {
      const min = r.int(1, 2);
      const max = min + r.int(0, 3);
      spec = {
        elasticPolicy: { minReplicas: min, maxReplicas: max },
        runPolicy,
        tfReplicaSpecs: {
          PS: { replicas: 1, restartPolicy: 'OnFailure', template: template({ cpu, memory: '512Mi' }, opts.pool) },
          Worker: { replicas: max, restartPolicy: 'OnFailure', template: template({ cpu, memory: '512Mi' }, opts.pool) },
        },
      };
    } else {
      spec = {
        runPolicy,
        tfReplicaSpecs: {
          Worker: { replicas: r.int(1, 3), restartPolicy: 'OnFailure', template: template({ cpu, memory: '512Mi' }, opts.pool) },
        },
      };
    }
    out.push({ job: { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', metadata: { name }, spec }, runMs: r.int(2_000, 8_000) });
  }
  return out;
}

const GROUP = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs' };

/**
 * Submits planned jobs with seeded gaps (`gapMs`), retrying each create until the API accepts it
 * (faults may make it answer 5xx/429 or be down); a 409 means an earlier attempt got through.
 */
export async function submitWorkload(
  kc: KubeConfig,
  namespace: string,
  jobs: readonly PlannedJob[],
  opts: { seed: number; gapMs: readonly [number, number]; signal?: AbortSignal },
): Promise<number> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const r = rng(opts.seed ^ 0x5eed);
  let retries = 0;
  for (const p of jobs) {
    for (;;) {
      if (opts.signal?.aborted === true) return retries;
      try {
        await custom.createNamespacedCustomObject({ ...GROUP, namespace, body: p.job });
        break;
      } catch (err) {
        if (httpStatus(err) === 409) break;
        retries += 1;
        await sleep(500);
      }
    }
    await sleep(r.int(opts.gapMs[0], opts.gapMs[1]));
  }
  return retries;
}

/**
 * Plays the jobs' training: a job seen Running for its run time gets worker 0 ended with exit code
 * 0 (each pod UID once; a replacement pod is ended again). Tolerates API errors (faults) by trying
 * again on the next tick.
 */
export class JobDriver {
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #namespace: string;
  readonly #runMs: ReadonlyMap<string, number>;
  readonly #runningSince = new Map<string, number>();
  readonly #ended = new Set<string>();
  #stopped = false;
  #loop: Promise<void> | undefined;
  errors = 0;
  exits = 0;

  constructor(kc: KubeConfig, namespace: string, runMs: ReadonlyMap<string, number>) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#namespace = namespace;
    this.#runMs = runMs;
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#tick();
      } catch {
        this.errors += 1;
      }
      await sleep(1_000);
    }
  }

  async #tick(): Promise<void> {
    const jobs = ((await this.#custom.listNamespacedCustomObject({ ...GROUP, namespace: this.#namespace })) as { items: TFJobLike[] })
      .items;
    const now = Date.now();
    for (const job of jobs) {
      const name = job.metadata?.name ?? '';
      if (isFinished(job)) continue;
      const running = (job.status?.conditions ?? []).some((c) => c.type === 'Running' && c.status === 'True');
      if (!running) continue;
      const since = this.#runningSince.get(name) ?? now;
      this.#runningSince.set(name, since);
      if (now - since < (this.#runMs.get(name) ?? 3_000)) continue;
      let pod: V1Pod;
      try {
        pod = await this.#core.readNamespacedPod({ name: `${name}-worker-0`, namespace: this.#namespace });
      } catch {
        continue;
      }
      const uid = pod.metadata?.uid ?? '';
      if (pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp !== undefined || this.#ended.has(uid)) continue;
      try {
        await this.#core.patchNamespacedPod(
          {
            name: pod.metadata?.name ?? '',
            namespace: this.#namespace,
            body: { metadata: { annotations: { [POD_EXIT_CODE_ANNOTATION]: '0' } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        this.#ended.add(uid);
        this.exits += 1;
      } catch {
        this.errors += 1;
      }
    }
  }
}

/** Waits until every job in the namespace is finished (or the timeout), returning the unfinished. */
export async function waitAllFinished(
  kc: KubeConfig,
  namespace: string,
  opts: { timeoutMs: number; expected?: number },
): Promise<string[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const deadline = Date.now() + opts.timeoutMs;
  let unfinished: string[] = ['(not read yet)'];
  while (Date.now() < deadline) {
    try {
      const jobs = ((await custom.listNamespacedCustomObject({ ...GROUP, namespace })) as { items: TFJobLike[] }).items;
      unfinished = jobs.filter((j) => !isFinished(j)).map((j) => j.metadata?.name ?? '');
      if (unfinished.length === 0 && (opts.expected === undefined || jobs.length >= opts.expected)) return [];
    } catch {
      // faults: read again
    }
    await sleep(1_000);
  }
  return unfinished;
}
