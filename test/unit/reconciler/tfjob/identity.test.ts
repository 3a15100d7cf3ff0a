import { describe, expect, it } from 'vitest';
import {
  jobLabels,
  isMasterRole,
  podLabels,
  replicaLabels,
  jobNameLabelValue,
  replicaName,
  isControlledBy,
  ownerReference,
} from '../../../../src/reconciler/tfjob/identity.ts';
import { newPod } from './builders.ts';

describe('replica names', () => {
  it('are <job>-<lowercase type>-<index>', () => {
    expect(replicaName('mnist', 'Worker', 0)).toBe('mnist-worker-0');
    expect(replicaName('mnist', 'PS', 1)).toBe('mnist-ps-1');
    expect(replicaName('mnist', 'Chief', 0)).toBe('mnist-chief-0');
    expect(replicaName('mnist', 'Evaluator', 0)).toBe('mnist-evaluator-0');
    expect(replicaName('mnist', 'Master', 0)).toBe('mnist-master-0');
  });

  it('replace every slash with a dash (GenGeneralName)', () => {
    expect(replicaName('a/b', 'Worker', 3)).toBe('a-b-worker-3');
    expect(jobNameLabelValue('test/key')).toBe('test-key');
  });
});

describe('labels', () => {
  it('TestGenLabels: job-name with slashes replaced, operator-name tfjob-controller', () => {
    expect(jobLabels('test/key')).toEqual({
      'training.kubeflow.org/operator-name': 'tfjob-controller',
      'training.kubeflow.org/job-name': 'test-key',
    });
  });

  it('service labels are the four replica labels (no job-role)', () => {
    expect(replicaLabels('dist', 'Worker', 0)).toEqual({
      'training.kubeflow.org/operator-name': 'tfjob-controller',
      'training.kubeflow.org/job-name': 'dist',
      'training.kubeflow.org/replica-type': 'worker',
      'training.kubeflow.org/replica-index': '0',
    });
  });

  it('job-role master goes to worker 0 when there is no Chief or Master', () => {
    const types = ['PS', 'Worker'];
    expect(podLabels('dist', types, 'Worker', 0)['training.kubeflow.org/job-role']).toBe('master');
    expect(podLabels('dist', types, 'Worker', 1)['training.kubeflow.org/job-role']).toBeUndefined();
    expect(podLabels('dist', types, 'PS', 0)['training.kubeflow.org/job-role']).toBeUndefined();
  });

  it('job-role master goes to every Chief/Master replica when one of them exists', () => {
    expect(isMasterRole(['Chief', 'Worker'], 'Chief', 0)).toBe(true);
    expect(isMasterRole(['Chief', 'Worker'], 'Chief', 1)).toBe(true);
    expect(isMasterRole(['Chief', 'Worker'], 'Worker', 0)).toBe(false);
    expect(isMasterRole(['Master', 'PS'], 'Master', 0)).toBe(true);
  });

  it('pod labels match Appendix A of the compatibility spec', () => {
    expect(podLabels('dist', ['PS', 'Worker'], 'Worker', 0)).toEqual({
      'training.kubeflow.org/job-name': 'dist',
      'training.kubeflow.org/operator-name': 'tfjob-controller',
      'training.kubeflow.org/replica-type': 'worker',
      'training.kubeflow.org/replica-index': '0',
      'training.kubeflow.org/job-role': 'master',
    });
  });

  it('legacy labels are added only on request', () => {
    const labels = podLabels('dist', ['Worker'], 'Worker', 0, { legacyLabels: true });
    expect(labels).toMatchObject({
      'group-name': 'kubeflow.org',
      'job-name': 'dist',
      'replica-type': 'worker',
      'replica-index': '0',
      'job-role': 'master',
    });
    expect(podLabels('dist', ['Worker'], 'Worker', 0)['group-name']).toBeUndefined();
  });
});

describe('owner reference (TestGenOwnerReference)', () => {
  it('is the controller reference with blockOwnerDeletion', () => {
    expect(ownerReference({ name: 'dist', uid: 'u-1' })).toEqual({
      apiVersion: 'kubeflow.org/v1',
      kind: 'TFJob',
      name: 'dist',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('identifies controlled objects by UID, not by name', () => {
    expect(isControlledBy(newPod('Worker', 0, { uid: 'u-1' }), 'u-1')).toBe(true);
    expect(isControlledBy(newPod('Worker', 0, { uid: 'u-2' }), 'u-1')).toBe(false);
  });
});
