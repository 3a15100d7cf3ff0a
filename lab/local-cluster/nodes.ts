// Fake nodes served by kwok. A node is "fake" (managed by our kwok) when it carries the annotation
// below; kwok then marks it Ready, keeps its lease, and runs the pods bound to it.
import type { V1Node, V1Taint } from '@kubernetes/client-node';

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_NODE_ANNOTATION_VALUE = 'fake';

/**
 * Annotating a Running pod with this key asks kwok to end its containers with that exit code; kwok then
 * behaves like a kubelet for the pod's restartPolicy (kwok-stages.yaml). Tests and the training
 * emulator use it; the operator never does.
 */
export const POD_EXIT_CODE_ANNOTATION = 'kwok.tfjob-operator.kubeflow.org/exit-code';
export const POD_EXIT_REASON_ANNOTATION = 'kwok.tfjob-operator.kubeflow.org/reason';
/** Annotating a fake node with this key makes kwok report it NotReady until the annotation is removed. */
export const NODE_NOT_READY_ANNOTATION = 'kwok.tfjob-operator.kubeflow.org/not-ready';

export interface FakeNodeSpec {
  readonly name: string;
  /** Kubernetes quantities, e.g. `{ cpu: '10', memory: '32Gi', 'nvidia.com/gpu': '4' }`. */
  readonly capacity: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly V1Taint[];
  readonly unschedulable?: boolean;
}

export function fakeNode(spec: FakeNodeSpec): V1Node {
  const capacity = { pods: '110', ...spec.capacity };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      annotations: { [KWOK_NODE_ANNOTATION]: KWOK_NODE_ANNOTATION_VALUE, 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': spec.name,
        type: 'kwok',
        ...spec.labels,
      },
    },
    spec: {
      taints: spec.taints ? [...spec.taints] : undefined,
      unschedulable: spec.unschedulable,
    },
    status: { allocatable: capacity, capacity },
  };
}

/** `count` identical nodes named `<prefix>-0` .. `<prefix>-<count-1>`. */
export function fakeNodes(prefix: string, count: number, template: Omit<FakeNodeSpec, 'name'>): FakeNodeSpec[] {
  return Array.from({ length: count }, (_, i) => ({ ...template, name: `${prefix}-${i}` }));
}
