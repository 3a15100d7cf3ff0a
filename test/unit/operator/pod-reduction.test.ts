// The cached forms of pods (pod-reduction.ts: the operator's own, other workloads') keep exactly what
// the controller and the scheduler read of each container: its name, requests/limits (the scheduler's
// accounting) and restart policy (sidecar init containers run for the pod's life and count as such).
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { reduceForeignPod, reduceOwnedPod } from '../../../src/operator/pod-reduction.ts';
import { observeResize } from '../../../src/operator/vertical/resize-state.ts';

const pod: V1Pod = {
  metadata: { name: 'job-worker-0', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
  spec: {
    nodeName: 'node-1',
    containers: [
      {
        name: 'tensorflow',
        image: 'tf:2',
        env: [{ name: 'TF_CONFIG', value: '{}' }],
        ports: [{ containerPort: 2222 }],
        resources: { requests: { cpu: '1' }, limits: { 'nvidia.com/gpu': '1' } },
      },
      { name: 'plain', image: 'busybox' },
    ],
    initContainers: [
      { name: 'sidecar', image: 'proxy', restartPolicy: 'Always', resources: { requests: { memory: '64Mi' } } },
      { name: 'init', image: 'init', command: ['true'] },
    ],
  },
};

const expectedContainers = [
  { name: 'tensorflow', resources: { requests: { cpu: '1' }, limits: { 'nvidia.com/gpu': '1' } } },
  { name: 'plain' },
];
const expectedInit = [{ name: 'sidecar', resources: { requests: { memory: '64Mi' } }, restartPolicy: 'Always' }, { name: 'init' }];

describe('cached pod containers', () => {
  for (const [name, reduce] of [
    ['reduceOwnedPod', reduceOwnedPod],
    ['reduceForeignPod', reduceForeignPod],
  ] as const) {
    it(`${name} keeps name, requests/limits and restart policy of every container, nothing else`, () => {
      const reduced = reduce(pod);
      expect(reduced.spec?.containers).toEqual(expectedContainers);
      expect(reduced.spec?.initContainers).toEqual(expectedInit);
      expect(reduced.spec?.nodeName).toBe('node-1');
    });

    it(`${name} leaves initContainers out when the pod has none`, () => {
      const reduced = reduce({ ...pod, spec: { containers: pod.spec!.containers } });
      expect(reduced.spec).not.toHaveProperty('initContainers');
    });
  }
});

describe('cached owned pod: container statuses', () => {
  // The kubelet reports an in-place resize it applied in containerStatuses[].resources; the vertical
  // stage reads the cached pod, so without them a resize on a real node stays "Requested" forever.
  const resized: V1Pod = {
    ...pod,
    spec: { containers: [{ name: 'tensorflow', image: 'tf:2', resources: { requests: { cpu: '100m' }, limits: { cpu: '2' } } }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'tensorflow',
          image: 'tf:2',
          imageID: 'sha256:abc',
          ready: true,
          restartCount: 0,
          resources: { requests: { cpu: '100m' }, limits: { cpu: '2' } },
        },
      ],
    },
  };

  it('keeps the resources the kubelet applied, and not the image', () => {
    const status = reduceOwnedPod(resized).status?.containerStatuses?.[0];
    expect(status?.resources).toEqual({ requests: { cpu: '100m' }, limits: { cpu: '2' } });
    expect(status?.imageID).toBe('');
  });

  it('lets the vertical stage see an applied resize as Applied', () => {
    expect(observeResize(reduceOwnedPod(resized), 'tensorflow', 2000)?.state).toBe('Applied');
  });
});
