// Admission plugins' refusals of a replica's pod, explained with the TFJob field that causes them.
import { describe, expect, it } from 'vitest';
import { explainRefusal } from '../../../../src/reconciler/tfjob/index.ts';

const worker = { metadata: { labels: { 'training.kubeflow.org/replica-type': 'worker' } } };

describe('explainRefusal', () => {
  it('names the template field the Priority admission plugin refuses, and what to do', () => {
    const api =
      'pods "p-worker-0" is forbidden: the integer value of priority (5) must not be provided in pod spec; ' +
      'priority admission controller computed 1000 from the given PriorityClass name';
    expect(explainRefusal(worker, api)).toBe(
      `${api} (spec.tfReplicaSpecs.Worker.template.spec.priority: the Priority admission plugin sets a pod priority from its ` +
        'PriorityClass and refuses pods that set it themselves: remove the field (name a PriorityClass instead))',
    );
  });

  it('points quota and LimitRange refusals at the containers resources, PodSecurity at the security contexts', () => {
    const ps = { metadata: { labels: { 'training.kubeflow.org/replica-type': 'ps' } } };
    expect(explainRefusal(ps, 'pods "p-ps-0" is forbidden: exceeded quota: q, requested: cpu=2, used: cpu=0, limited: cpu=1')).toContain(
      '(spec.tfReplicaSpecs.PS.template.spec.containers[*].resources: ',
    );
    expect(explainRefusal(ps, 'pods "x" is forbidden: maximum cpu usage per Container is 1, but limit is 2')).toContain(
      'spec.tfReplicaSpecs.PS.template.spec.containers[*].resources',
    );
    expect(explainRefusal(worker, 'pods "x" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true')).toContain(
      'spec.tfReplicaSpecs.Worker.template.spec.securityContext, spec.tfReplicaSpecs.Worker.template.spec.containers[*].securityContext',
    );
  });

  it('leaves refusals it does not know unchanged', () => {
    expect(explainRefusal(worker, 'admission webhook "x" denied the request: no')).toBe('admission webhook "x" denied the request: no');
  });
});
