// Test objects in the shape of tf-operator's testutil (NewTFJob(worker, ps): job `test-tfjob` in
// `default`, one `tensorflow` container with tfjob-port 2222, restart policy left empty).

import type { ContainerStatus, Pod, Service } from '../../../../src/api/v1/k8s-types.ts';
import {
  ANNOTATION_REMOVAL,
  LABEL_JOB_NAME,
  LABEL_OPERATOR_NAME,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
} from '../../../../src/api/v1/constants.ts';
import type { TFJob } from '../../../../src/api/v1/schema.ts';
import { ownerReference } from '../../../../src/reconciler/tfjob/identity.ts';

export const JOB_UID = '8f0e4c1e-5d3b-4a53-9a7e-1f0a2b3c4d5e';
export const T0 = new Date('2024-09-10T10:00:00Z');

export function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

export function replicaTemplate(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec: {
      containers: [
        {
          name: 'tensorflow',
          image: 'kubeflow/tf-dist-mnist-test:1.0',
          ports: [{ name: 'tfjob-port', containerPort: 2222 }],
          ...extra,
        },
      ],
    },
  };
}

export interface JobOptions {
  name?: string;
  namespace?: string;
  chief?: number;
  master?: number;
  evaluator?: number;
  restartPolicy?: string;
  spec?: Record<string, unknown>;
  runPolicy?: Record<string, unknown>;
  status?: Record<string, unknown>;
  annotations?: Record<string, string>;
}

/** A raw TFJob as the API returns it. `worker`/`ps` of 0 leave the type out, as testutil does. */
export function newTFJob(worker: number, ps: number, options: JobOptions = {}): Record<string, unknown> {
  const specs: Record<string, unknown> = {};
  const add = (type: string, replicas: number | undefined): void => {
    if (replicas === undefined || replicas <= 0) return;
    specs[type] = {
      replicas,
      template: replicaTemplate(),
      ...(options.restartPolicy === undefined ? {} : { restartPolicy: options.restartPolicy }),
    };
  };
  add('Worker', worker);
  add('PS', ps);
  add('Chief', options.chief);
  add('Master', options.master);
  add('Evaluator', options.evaluator);
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: {
      name: options.name ?? 'test-tfjob',
      namespace: options.namespace ?? 'default',
      uid: JOB_UID,
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      tfReplicaSpecs: specs,
      ...(options.runPolicy ? { runPolicy: options.runPolicy } : {}),
      ...(options.spec ?? {}),
    },
    ...(options.status ? { status: options.status } : {}),
  };
}

export function asTFJob(raw: Record<string, unknown>): TFJob {
  return raw as unknown as TFJob;
}

export interface PodOptions {
  job?: string;
  namespace?: string;
  phase?: string;
  exitCode?: number;
  restartCount?: number;
  deleting?: boolean;
  removal?: string;
  uid?: string;
}

export function tensorflowStatus(options: PodOptions): ContainerStatus {
  return {
    name: 'tensorflow',
    image: 'kubeflow/tf-dist-mnist-test:1.0',
    imageID: '',
    ready: options.phase === 'Running',
    restartCount: options.restartCount ?? 0,
    ...(options.exitCode === undefined ? {} : { state: { terminated: { exitCode: options.exitCode } } }),
  };
}

export function newPod(type: string, index: number, options: PodOptions = {}): Pod {
  const job = options.job ?? 'test-tfjob';
  const name = `${job}-${type.toLowerCase()}-${index}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      labels: {
        [LABEL_OPERATOR_NAME]: 'tfjob-controller',
        [LABEL_JOB_NAME]: job,
        [LABEL_REPLICA_TYPE]: type.toLowerCase(),
        [LABEL_REPLICA_INDEX]: String(index),
      },
      ...(options.removal ? { annotations: { [ANNOTATION_REMOVAL]: options.removal } } : {}),
      ...(options.deleting ? { deletionTimestamp: T0 } : {}),
      ownerReferences: [ownerReference({ name: job, uid: options.uid ?? JOB_UID })],
    },
    spec: { containers: [{ name: 'tensorflow', image: 'kubeflow/tf-dist-mnist-test:1.0' }] },
    status: {
      phase: options.phase ?? 'Pending',
      ...(options.phase === 'Pending' || options.phase === undefined ? {} : { containerStatuses: [tensorflowStatus(options)] }),
    },
  };
}

/** `count` pods of a type with the given phase, starting at `from`. */
export function pods(type: string, count: number, phase: string, from = 0, options: PodOptions = {}): Pod[] {
  return Array.from({ length: count }, (_, i) => newPod(type, from + i, { ...options, phase }));
}

export function newService(type: string, index: number, job = 'test-tfjob'): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: `${job}-${type.toLowerCase()}-${index}`,
      namespace: 'default',
      labels: {
        [LABEL_OPERATOR_NAME]: 'tfjob-controller',
        [LABEL_JOB_NAME]: job,
        [LABEL_REPLICA_TYPE]: type.toLowerCase(),
        [LABEL_REPLICA_INDEX]: String(index),
      },
      ownerReferences: [ownerReference({ name: job, uid: JOB_UID })],
    },
    spec: { clusterIP: 'None' },
  };
}

export function services(type: string, count: number, from = 0): Service[] {
  return Array.from({ length: count }, (_, i) => newService(type, from + i));
}
