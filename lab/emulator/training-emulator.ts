// Plays the TensorFlow processes of a scenario's jobs on a real cluster with kwok nodes: it watches
// the jobs' pods, advances each job's progress with the same throughput model the simulator uses
// (`progressRate` of where its running PS and workers are), and when a job's work is done ends all
// its pods with exit code 0 (kwok then marks them Succeeded, and the operator sees the job succeed).
// Time is compressed: one real second is `timeScale` seconds of training.
import { emulatedAccuracy } from '../workloads/progress-curve.ts';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LABEL_JOB_NAME, LABEL_REPLICA_TYPE } from '../../src/api/v1/constants.ts';
import { PROGRESS_PREFIX } from '../../src/progress/signals/index.ts';
import { POD_EXIT_CODE_ANNOTATION } from '../local-cluster/nodes.ts';
import { appendPodLog, servePodLogFile } from '../local-cluster/pod-logs.ts';
import { Informer } from '../../src/runtime/informer.ts';
import type { KubeClients } from '../../src/runtime/kube-client.ts';
import type { Logger } from '../../src/runtime/logger.ts';
import { namespacedKey } from '../../src/runtime/store.ts';
import { progressRate, type WorkloadJob } from '../workloads/index.ts';
import { podRequests } from '../../src/operator/scheduling/convert.ts';
import { jobName } from './manifests.ts';

export interface EmulatedJob {
  readonly workload: WorkloadJob;
  readonly name: string;
  /** Work done, in the workload's unit. */
  done: number;
  /** Scenario seconds (since the emulator started) of submission, first progress and completion. */
  submitted?: number;
  started?: number;
  finished?: number;
  /** Latest rate (units per scenario second) and placement, for live displays. */
  rate: number;
  ps: string[];
  workers: string[];
  /** Pods ended by the emulator (so it does not end them twice). */
  ended: boolean;
  /**
   * Scenario seconds when its work was done and the emulator ended its pods. The simulator finishes
   * a job at this moment; `finished` comes later by the time kwok, the operator and the watches take
   * to turn that into a Succeeded condition (see EmulatorLag).
   */
  workDoneAt?: number;
}

/** How far the real pipeline lags behind the model, in scenario seconds (host load makes it grow). */
export interface EmulatorLag {
  /** Per pod: from first seen bound to a node to first seen Running (kwok's start, the watches). */
  readonly podStarts: readonly number[];
}

export interface EmulatorOptions {
  readonly kc: KubeConfig;
  readonly clients: KubeClients;
  readonly namespace: string;
  readonly jobs: readonly WorkloadJob[];
  readonly timeScale: number;
  /** Scenario seconds a replica needs after it starts running before it makes progress. */
  readonly startupSeconds: number;
  readonly tickMs?: number;
  /**
   * Each job prints its progress (the protocol of docs/progress-protocol.md) into worker 0's log,
   * served by kwok from a file, so an operator reading progress sees a real signal. The metric is the
   * emulated job's own accuracy curve (rising and flattening with its work done): the job reports
   * it; the operator still never sees the work.
   */
  readonly progressLogs?: boolean;
  readonly logger: Logger;
}

interface JobObject extends KubernetesObject {
  status?: { conditions?: { type: string; status: string }[] };
}

export class TrainingEmulator {
  readonly jobs = new Map<string, EmulatedJob>();
  readonly #opts: EmulatorOptions;
  readonly #pods: Informer<V1Pod>;
  readonly #tfjobs: Informer<JobObject>;
  readonly #core: CoreV1Api;
  /** Real ms when each pod was first seen Running. */
  readonly #runningSince = new Map<string, number>();
  /** Real ms when each pod was first seen bound to a node and not yet Running. */
  readonly #boundSince = new Map<string, number>();
  readonly #podStartLags: number[] = [];
  /** Real ms at scenario time 0 (set by startClock; until then the scenario has not begun). */
  #startedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #last = performance.now();
  #busy = false;
  /** Worker 0's log file per pod UID (progressLogs), and when a line was last written to it. */
  readonly #logs = new Map<string, { file: string; lastMs: number }>();
  #logDir: string | undefined;
  /** Time-weighted allocation of the namespace's running pods (scenario seconds × canonical units). */
  readonly allocatedIntegral: Record<string, number> = {};
  #integratedSeconds = 0;

  constructor(opts: EmulatorOptions) {
    this.#opts = opts;
    for (const w of opts.jobs) {
      this.jobs.set(jobName(w), { workload: w, name: jobName(w), done: 0, rate: 0, ps: [], workers: [], ended: false });
    }
    this.#core = opts.clients.api(CoreV1Api);
    const custom = opts.clients.api(CustomObjectsApi);
    const ns = opts.namespace;
    this.#pods = new Informer<V1Pod>(
      opts.kc,
      {
        list: ({ limit, continueToken }) =>
          this.#core.listNamespacedPod({ namespace: ns, limit, _continue: continueToken, labelSelector: LABEL_JOB_NAME }),
        watchPath: `/api/v1/namespaces/${ns}/pods`,
        labelSelector: LABEL_JOB_NAME,
      },
      { name: 'emulator-pods', logger: opts.logger },
    );
    this.#tfjobs = new Informer<JobObject>(
      opts.kc,
      {
        list: ({ limit, continueToken }) =>
          custom.listNamespacedCustomObject({
            group: 'kubeflow.org',
            version: 'v1',
            plural: 'tfjobs',
            namespace: ns,
            limit,
            _continue: continueToken,
          }) as Promise<{ items: JobObject[] }>,
        watchPath: `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`,
      },
      { name: 'emulator-tfjobs', logger: opts.logger },
    );
  }

  /** Scenario seconds elapsed since the emulator started. */
  now(): number {
    if (this.#startedAt === undefined) return 0;
    return ((performance.now() - this.#startedAt) / 1000) * this.#opts.timeScale;
  }

  /** Scenario time 0: call right before submitting the first job. */
  startClock(): void {
    this.#startedAt = performance.now();
    this.#last = this.#startedAt;
  }

  async start(): Promise<void> {
    this.#pods.start();
    this.#tfjobs.start();
    await Promise.all([this.#pods.waitForSync(), this.#tfjobs.waitForSync()]);
    this.#last = performance.now();
    this.#timer = setInterval(() => {
      if (this.#busy) return;
      this.#busy = true;
      void this.#tick().finally(() => {
        this.#busy = false;
      });
    }, this.#opts.tickMs ?? 100);
  }

  stop(): void {
    if (this.#logDir !== undefined) rmSync(this.#logDir, { recursive: true, force: true });
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#pods.stop();
    this.#tfjobs.stop();
  }

  /** Records when a job was submitted (scenario seconds; the caller creates its TFJob). */
  submitted(name: string, at = this.now()): void {
    const j = this.jobs.get(name);
    if (j !== undefined) j.submitted ??= at;
  }

  /** Time-weighted mean allocation per resource while jobs were unfinished (canonical units). */
  meanAllocated(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this.allocatedIntegral)) out[k] = this.#integratedSeconds > 0 ? v / this.#integratedSeconds : 0;
    return out;
  }

  lag(): EmulatorLag {
    return { podStarts: [...this.#podStartLags] };
  }

  allFinished(): boolean {
    return [...this.jobs.values()].every((j) => j.finished !== undefined);
  }

  async #tick(): Promise<void> {
    const nowReal = performance.now();
    const dtScenario = ((nowReal - this.#last) / 1000) * this.#opts.timeScale;
    this.#last = nowReal;
    const startupMs = (this.#opts.startupSeconds / this.#opts.timeScale) * 1000;
    const byJob = new Map<string, V1Pod[]>();
    const allocated: Record<string, number> = {};
    for (const pod of this.#pods.store.list()) {
      if (pod.spec?.nodeName !== undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
        for (const [k, v] of Object.entries(podRequests(pod))) allocated[k] = (allocated[k] ?? 0) + v;
      }
      const job = pod.metadata?.labels?.[LABEL_JOB_NAME];
      if (job === undefined) continue;
      byJob.set(job, [...(byJob.get(job) ?? []), pod]);
      const key = pod.metadata?.uid ?? '';
      if (pod.status?.phase === 'Running' && pod.metadata?.deletionTimestamp === undefined) {
        if (!this.#runningSince.has(key)) {
          this.#runningSince.set(key, nowReal);
          const bound = this.#boundSince.get(key);
          if (bound !== undefined && this.#startedAt !== undefined) {
            this.#podStartLags.push(((nowReal - bound) / 1000) * this.#opts.timeScale);
          }
          this.#boundSince.delete(key);
        }
      } else {
        this.#runningSince.delete(key);
        if (pod.spec?.nodeName !== undefined && pod.status?.phase === 'Pending' && !this.#boundSince.has(key)) {
          this.#boundSince.set(key, nowReal);
        }
      }
    }
    if (this.#startedAt !== undefined && !this.allFinished()) {
      for (const [k, v] of Object.entries(allocated)) this.allocatedIntegral[k] = (this.allocatedIntegral[k] ?? 0) + v * dtScenario;
      this.#integratedSeconds += dtScenario;
    }
    for (const job of this.jobs.values()) {
      const tfjob = this.#tfjobs.store.get(namespacedKey(this.#opts.namespace, job.name));
      if (job.finished === undefined && tfjob?.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') === true) {
        job.finished = this.now();
      }
      if (job.ended) continue;
      const ps: string[] = [];
      const workers: string[] = [];
      for (const pod of byJob.get(job.name) ?? []) {
        const since = this.#runningSince.get(pod.metadata?.uid ?? '');
        const node = pod.spec?.nodeName;
        if (since === undefined || node === undefined || nowReal - since < startupMs) continue;
        const type = pod.metadata?.labels?.[LABEL_REPLICA_TYPE];
        if (type === 'ps') ps.push(node);
        else if (type === 'worker') workers.push(node);
      }
      job.ps = ps;
      job.workers = workers;
      job.rate = progressRate(job.workload, { ps, workers });
      if (job.rate > 0) job.started ??= this.now();
      job.done = Math.min(job.workload.work, job.done + job.rate * dtScenario);
      if (this.#opts.progressLogs === true) {
        await this.#report(job, byJob.get(job.name) ?? [], nowReal).catch((err: unknown) => {
          this.#opts.logger.warn({ err, tfjob: job.name }, 'Could not write an emulated progress log');
        });
      }
      if (job.done >= job.workload.work) {
        job.ended = true;
        job.workDoneAt = this.now();
        await this.#endPods(byJob.get(job.name) ?? []);
      }
    }
  }

  /** Appends a progress line to worker 0's log about once a real second while the job trains. */
  async #report(job: EmulatedJob, pods: readonly V1Pod[], nowReal: number): Promise<void> {
    const pod = pods.find((p) => p.metadata?.name === `${job.name}-worker-0` && p.status?.phase === 'Running');
    const uid = pod?.metadata?.uid;
    if (pod === undefined || uid === undefined || job.rate <= 0) return;
    let log = this.#logs.get(uid);
    if (log === undefined) {
      this.#logDir ??= mkdtempSync(path.join(os.tmpdir(), 'emulator-logs-'));
      const file = path.join(this.#logDir, `${uid}.log`);
      await servePodLogFile(this.#opts.clients, this.#opts.namespace, pod.metadata?.name ?? '', file);
      log = { file, lastMs: Number.NEGATIVE_INFINITY };
      this.#logs.set(uid, log);
    }
    if (nowReal - log.lastMs < 1_000) return;
    log.lastMs = nowReal;
    const fraction = job.done / job.workload.work;
    const line = `${PROGRESS_PREFIX} ${JSON.stringify({ step: Math.round(job.done), metric: Number(emulatedAccuracy(fraction).toFixed(4)), name: 'accuracy', higherIsBetter: true })}`;
    appendPodLog(log.file, [line]);
  }

  async #endPods(pods: readonly V1Pod[]): Promise<void> {
    await Promise.all(
      pods
        .filter((p) => p.status?.phase === 'Running')
        .map(async (pod) => {
          try {
            await this.#core.patchNamespacedPod(
              {
                name: pod.metadata?.name ?? '',
                namespace: this.#opts.namespace,
                body: { metadata: { annotations: { [POD_EXIT_CODE_ANNOTATION]: '0' } } },
              },
              setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
            );
          } catch (err) {
            this.#opts.logger.warn({ err, pod: pod.metadata?.name }, 'Could not end an emulated pod');
          }
        }),
    );
  }
}
