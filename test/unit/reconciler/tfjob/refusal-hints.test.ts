// Admission plugins' refusals of a replica's pod, explained with the TFJob field that causes them.
import { describe, expect, it } from 'vitest';
import { classifyRefusal, explainRefusal } from '../../../../src/reconciler/tfjob/index.ts';

const worker = { metadata: { labels: { 'training.kubeflow.org/replica-type': 'worker' } } };

describe('explainRefusal', () => {
  it('names the template field the Priority admission plugin refuses, and what to do', () => {
    const api =
      'pods "p-worker-0" is forbidden: the integer value of priority (5) must not be provided in pod spec; ' +
      'priority admission controller computed 1000 from the given PriorityClass name';
    expect(explainRefusal(worker, api)).toBe(
      `${api} (Priority admission plugin; spec.tfReplicaSpecs.Worker.template.spec.priority: the Priority admission plugin sets a pod priority from its ` +
        'PriorityClass and refuses pods that set it themselves: remove the field (name a PriorityClass instead))',
    );
  });

  it('points quota and LimitRange refusals at the containers resources, PodSecurity at the security contexts', () => {
    const ps = { metadata: { labels: { 'training.kubeflow.org/replica-type': 'ps' } } };
    expect(explainRefusal(ps, 'pods "p-ps-0" is forbidden: exceeded quota: q, requested: cpu=2, used: cpu=0, limited: cpu=1')).toContain(
      '(ResourceQuota admission plugin; spec.tfReplicaSpecs.PS.template.spec.containers[*].resources: ',
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

  it('names the refusing plugin and marks as permanent only what an edit of the TFJob alone can lift', () => {
    const cases: [string, string | undefined, boolean][] = [
      [
        'pods "x" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0',
        'Priority',
        true,
      ],
      [
        'pods "x" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
        'Priority',
        true,
      ],
      ['pods "x" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead', 'RuntimeClass', true],
      ['pods "x" is forbidden: no PriorityClass with name hi was found', 'Priority', false],
      ['pods "x" is forbidden: exceeded quota: q, requested: cpu=2, used: cpu=0, limited: cpu=1', 'ResourceQuota', false],
      [
        'services "s" is forbidden: exceeded quota: q, requested: services=1, used: services=1, limited: services=1',
        'ResourceQuota',
        false,
      ],
      ['pods "x" is forbidden: maximum cpu usage per Container is 1, but limit is 2', 'LimitRanger', false],
      ['pods "x" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true', 'PodSecurity', false],
      ['admission webhook "deny.example.com" denied the request: no', 'webhook deny.example.com', false],
      ['pods "x" is forbidden: something new', undefined, false],
    ];
    for (const [message, plugin, permanent] of cases) expect(classifyRefusal(message), message).toEqual({ plugin, permanent });
  });
});
