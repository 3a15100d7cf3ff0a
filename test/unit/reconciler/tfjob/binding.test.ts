import { describe, expect, it } from 'vitest';
import {
  describeSchedulers,
  pinnedToNode,
  schedulerOnlyConstraint,
  schedulersNamedByTemplates,
} from '../../../../src/reconciler/tfjob/binding.ts';

const container = { name: 'tensorflow', image: 'tf' };

describe('which pods kube-scheduler must bind', () => {
  it('names the first constraint only kube-scheduler evaluates', () => {
    expect(schedulerOnlyConstraint({ containers: [container] })).toBeUndefined();
    // Node-only constraints are evaluated by the scheduling core: bound directly.
    expect(
      schedulerOnlyConstraint({
        containers: [{ ...container, ports: [{ containerPort: 2222 }] }],
        nodeSelector: { zone: 'a' },
        tolerations: [{ key: 'x', operator: 'Exists' }],
        volumes: [{ name: 'scratch', emptyDir: {} }],
        affinity: { nodeAffinity: {} },
      }),
    ).toBeUndefined();
    expect(schedulerOnlyConstraint({ containers: [container], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] })).toBe(
      'volume d (a PersistentVolumeClaim)',
    );
    expect(schedulerOnlyConstraint({ containers: [container], volumes: [{ name: 'e', ephemeral: {} }] })).toBe(
      'volume e (a PersistentVolumeClaim)',
    );
    expect(schedulerOnlyConstraint({ containers: [container], affinity: { podAffinity: {} } })).toBe('pod affinity');
    expect(schedulerOnlyConstraint({ containers: [container], affinity: { podAntiAffinity: {} } })).toBe('pod anti-affinity');
    expect(
      schedulerOnlyConstraint({
        containers: [container],
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }],
      }),
    ).toBe('topology spread constraints');
    expect(schedulerOnlyConstraint({ containers: [{ ...container, ports: [{ containerPort: 80, hostPort: 8080 }] }] })).toBe(
      'host port 8080',
    );
    expect(schedulerOnlyConstraint({ containers: [container], resourceClaims: [{ name: 'gpu' }] })).toBe('resource claims');
  });

  it('pins a spec to one node, keeping the rest of its affinity', () => {
    const pin = { key: 'metadata.name', operator: 'In', values: ['n1'] };
    const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } }];
    const spec = pinnedToNode(
      {
        containers: [container],
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred }, podAntiAffinity: {} },
      },
      'n1',
    );
    expect(spec.affinity).toEqual({
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [pin] }] },
      },
      podAntiAffinity: {},
    });
    expect(spec.nodeName).toBeUndefined();
  });
});

describe('which jobs are left to the schedulers their templates name', () => {
  const spec = (schedulerName?: string) => ({
    template: { spec: { containers: [container], ...(schedulerName === undefined ? {} : { schedulerName }) } },
  });

  it('none when every template leaves its pods to kube-scheduler (unset, empty or default-scheduler)', () => {
    expect(schedulersNamedByTemplates({ PS: spec(), Worker: spec('') })).toBeUndefined();
    expect(schedulersNamedByTemplates({ Worker: spec('default-scheduler') })).toBeUndefined();
  });

  it('every replica type with its scheduler, in replica-type order, once one names another', () => {
    expect(schedulersNamedByTemplates({ Worker: spec('volcano'), PS: spec() })).toEqual([
      { replicaType: 'PS', schedulerName: 'default-scheduler' },
      { replicaType: 'Worker', schedulerName: 'volcano' },
    ]);
  });

  it('says which field names which scheduler, and what the operator leaves alone', () => {
    const text = describeSchedulers([
      { replicaType: 'PS', schedulerName: 'default-scheduler' },
      { replicaType: 'Worker', schedulerName: 'volcano' },
    ]);
    expect(text).toBe(
      'pods left to the schedulers their templates name (spec.tfReplicaSpecs.<type>.template.spec.schedulerName: ' +
        'PS "default-scheduler", Worker "volcano"); this operator does not queue, place, scale or preempt this job',
    );
  });
});
