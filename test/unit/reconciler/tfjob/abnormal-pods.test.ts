import { describe, expect, it } from 'vitest';
import { abnormalPodEvents } from '../../../../src/reconciler/tfjob/abnormal-pods.ts';
import { newPod } from './builders.ts';

describe('abnormal pod echoes (compat §2.14)', () => {
  it('container terminated non-zero: reason from the container, exit code and message', () => {
    const pod = newPod('Worker', 0, { phase: 'Running' });
    pod.status!.containerStatuses = [
      {
        name: 'tensorflow',
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 1,
        state: { terminated: { exitCode: 137, reason: 'OOMKilled', message: 'out of memory' } },
      },
    ];
    expect(abnormalPodEvents([pod])).toEqual([
      {
        type: 'Warning',
        reason: 'OOMKilled',
        message: 'Error pod test-tfjob-worker-0 container tensorflow exitCode: 137 terminated message: out of memory',
      },
    ]);
  });

  it('container waiting with a message', () => {
    const pod = newPod('Worker', 0, { phase: 'Pending' });
    pod.status!.containerStatuses = [
      {
        name: 'tensorflow',
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } },
      },
    ];
    expect(abnormalPodEvents([pod])).toEqual([
      {
        type: 'Warning',
        reason: 'ImagePullBackOff',
        message: 'Error pod test-tfjob-worker-0 container tensorflow waiting message: Back-off pulling image "x"',
      },
    ]);
  });

  it('no container status yet: the latest pod condition if it is not True', () => {
    const pod = newPod('Worker', 0, { phase: 'Pending' });
    pod.status!.conditions = [
      { type: 'Initialized', status: 'True', lastTransitionTime: new Date('2024-09-10T10:00:00Z') },
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/3 nodes are available',
        lastTransitionTime: new Date('2024-09-10T10:00:05Z'),
      },
    ];
    expect(abnormalPodEvents([pod])).toEqual([
      { type: 'Warning', reason: 'Unschedulable', message: 'Error pod test-tfjob-worker-0 condition message: 0/3 nodes are available' },
    ]);
  });

  it('only active pods are looked at; healthy ones produce nothing', () => {
    const finished = newPod('Worker', 0, { phase: 'Failed', exitCode: 1 });
    expect(abnormalPodEvents([finished, newPod('Worker', 1, { phase: 'Running' })])).toEqual([]);
  });
});
