// The JSON the dashboard's page reads: one snapshot of the cluster, queues and jobs (GET /api/snapshot)
// and the detail of one job (GET /api/job/NS/NAME). Built from the watches' caches; nothing is stored.

export interface Resources {
  readonly cpu: number;
  readonly memory: number;
  readonly gpu: number;
}

export interface PodView {
  readonly namespace: string;
  readonly name: string;
  readonly node: string | undefined;
  readonly phase: string;
  /** `namespace/name` of the TFJob the pod belongs to, when the operator made it. */
  readonly job: string | undefined;
  readonly replicaType: string | undefined;
  readonly requests: Resources;
  readonly limits: Resources;
  readonly deleting: boolean;
}

export interface NodeView {
  readonly name: string;
  readonly ready: boolean;
  readonly unschedulable: boolean;
  readonly allocatable: Resources;
  readonly requested: Resources;
  /** Pods bound to the node and not finished. */
  readonly pods: readonly PodView[];
}

export interface QueueHead {
  readonly position: number;
  readonly job: string;
  readonly reason: string;
}

export interface ClusterQueueView {
  readonly name: string;
  readonly cohort: string | undefined;
  readonly quota: Readonly<Record<string, string>>;
  readonly usage: Readonly<Record<string, string>>;
  readonly borrowed: Readonly<Record<string, string>>;
  readonly pending: number;
  readonly admitted: number;
  readonly active: string;
  readonly heads: readonly QueueHead[];
}

export interface LocalQueueView {
  readonly namespace: string;
  readonly name: string;
  readonly clusterQueue: string;
  readonly pending: number;
  readonly admitted: number;
}

export interface JobRow {
  readonly namespace: string;
  readonly name: string;
  /** Created, Running, Succeeded, Failed, Suspended...: the last true condition, or `Unknown`. */
  readonly state: string;
  readonly queue: string | undefined;
  readonly clusterQueue: string | undefined;
  readonly position: number | undefined;
  readonly weight: string | undefined;
  readonly workers: { readonly current: number | undefined; readonly min: number | undefined; readonly max: number | undefined };
  readonly reason: string | undefined;
  readonly message: string | undefined;
  readonly phase: string | undefined;
  readonly metricName: string | undefined;
  readonly metric: string | undefined;
  readonly step: number | undefined;
  readonly fractionDone: number | undefined;
  readonly eta: string | undefined;
  readonly qoeClass: string | undefined;
  readonly qoeTarget: string | undefined;
  readonly requiredRate: string | undefined;
  readonly measuredRate: string | undefined;
  readonly created: string | undefined;
}

export interface Access {
  /** Per kind: `cluster` (every namespace), the namespaces watched, or `denied` with why. */
  readonly [kind: string]:
    | { readonly scope: 'cluster' }
    | { readonly scope: 'namespaces'; readonly namespaces: readonly string[] }
    | { readonly scope: 'denied'; readonly why: string };
}

export interface Snapshot {
  readonly generatedAt: string;
  readonly user: string;
  readonly access: Access;
  readonly nodes: readonly NodeView[];
  /** Pods not bound to a node yet (Pending, unscheduled). */
  readonly unscheduled: readonly PodView[];
  readonly clusterQueues: readonly ClusterQueueView[];
  readonly localQueues: readonly LocalQueueView[];
  readonly jobs: readonly JobRow[];
}

/** One moment of a job, as the dashboard saw it (ms since the epoch). */
export interface Sample {
  readonly t: number;
  readonly workers: number;
  /** CPU limits (requests where a pod sets none) of the job's live pods, in cores. */
  readonly cpu: number;
  readonly step: number | undefined;
  readonly metric: number | undefined;
  readonly stepRate: number | undefined;
}

export interface EventView {
  readonly time: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
}

export interface JobDetail {
  readonly row: JobRow;
  readonly samples: readonly Sample[];
  /** Since when the samples reach back (the dashboard's start, or the job's first sighting). */
  readonly samplesSince: number | undefined;
  readonly events: readonly EventView[];
  readonly pods: readonly PodView[];
  /** TF_CONFIG of each replica, as the operator set it on its pod. */
  readonly tfConfig: Readonly<Record<string, string>>;
  /** The job's status as stored, for what the views do not show. */
  readonly status: unknown;
}
