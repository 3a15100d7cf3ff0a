// The per-replica headless Service that gives each replica its stable DNS name
// (`<job>-<type>-<i>.<ns>.svc`), which TF_CONFIG points at.

import { DEFAULT_PORT_NAME } from '../../api/v1/constants.ts';
import type { DefaultedReplicaSpec } from '../../api/v1/defaults.ts';
import type { Service } from '../../api/v1/k8s-types.ts';
import { replicaLabels, replicaName, ownerReference } from './identity.ts';
import type { PodIdentity } from './pod-builder.ts';
import { replicaPort } from './tf-config.ts';

export function buildService(job: PodIdentity, replicaType: string, index: number, spec: DefaultedReplicaSpec): Service {
  const labels = replicaLabels(job.name, replicaType, index);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: replicaName(job.name, replicaType, index),
      namespace: job.namespace,
      labels,
      ownerReferences: [ownerReference(job)],
    },
    spec: {
      clusterIP: 'None',
      selector: { ...labels },
      ports: [{ name: DEFAULT_PORT_NAME, port: replicaPort(spec) }],
    },
  };
}
