import { describe, expect, it } from 'vitest';
import { tfConfigFor } from '../../../../src/reconciler/tfjob/job-view.ts';
import { buildPod } from '../../../../src/reconciler/tfjob/pod-builder.ts';
import { buildService } from '../../../../src/reconciler/tfjob/service-builder.ts';
import { JOB_UID, newTFJob } from './builders.ts';
import { viewOf } from './job-helpers.ts';

function distJob(mutate?: (workerTemplate: Record<string, unknown>) => void) {
  const raw = newTFJob(2, 1, { name: 'dist', namespace: 'ml' });
  const worker = (raw.spec as { tfReplicaSpecs: { Worker: { template: Record<string, unknown> } } }).tfReplicaSpecs.Worker;
  mutate?.(worker.template);
  return viewOf(raw);
}

function workerPod(view: ReturnType<typeof viewOf>, index = 0, options = {}) {
  const tfConfig = tfConfigFor(view, 'Worker', index);
  return buildPod(view, view.types, 'Worker', index, view.replicaSpecs.Worker!, { ...(tfConfig ? { tfConfig } : {}), ...options });
}

describe('pod construction (compat §2.4, Appendix A)', () => {
  it('builds dist-worker-0 as in Appendix A', () => {
    const { pod, events } = workerPod(distJob());
    expect(events).toEqual([]);
    expect(pod.metadata).toEqual({
      name: 'dist-worker-0',
      namespace: 'ml',
      labels: {
        'training.kubeflow.org/job-name': 'dist',
        'training.kubeflow.org/operator-name': 'tfjob-controller',
        'training.kubeflow.org/replica-type': 'worker',
        'training.kubeflow.org/replica-index': '0',
        'training.kubeflow.org/job-role': 'master',
      },
      ownerReferences: [
        { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'dist', uid: JOB_UID, controller: true, blockOwnerDeletion: true },
      ],
    });
    expect(pod.spec?.restartPolicy).toBe('Never');
    const container = pod.spec?.containers[0];
    expect(container?.ports).toEqual([{ name: 'tfjob-port', containerPort: 2222 }]);
    expect(container?.env).toEqual([
      {
        name: 'TF_CONFIG',
        value:
          '{"cluster":{"ps":["dist-ps-0.ml.svc:2222"],"worker":["dist-worker-0.ml.svc:2222","dist-worker-1.ml.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
      },
    ]);
  });

  it('Test Copy Labels and Annotation: template labels and annotations reach the pod; operator labels win', () => {
    const view = distJob((t) => {
      t.metadata = {
        labels: { label1: '1', 'training.kubeflow.org/replica-index': '99' },
        annotations: { annotation1: '1' },
        finalizers: ['example.com/keep'],
      };
    });
    const { pod } = workerPod(view, 1);
    expect(pod.metadata?.labels).toMatchObject({ label1: '1', 'training.kubeflow.org/replica-index': '1' });
    expect(pod.metadata?.annotations).toEqual({ annotation1: '1' });
    expect(pod.metadata?.finalizers).toEqual(['example.com/keep']);
  });

  it('appends TF_CONFIG after user variables of the first tensorflow container only, keeping a user TF_CONFIG', () => {
    const view = distJob((t) => {
      t.spec = {
        containers: [
          { name: 'sidecar', image: 'busybox' },
          {
            name: 'tensorflow',
            image: 'tf',
            env: [
              { name: 'A', value: '1' },
              { name: 'TF_CONFIG', value: 'mine' },
            ],
          },
        ],
      };
    });
    const { pod } = workerPod(view);
    expect(pod.spec?.containers[0]?.env).toBeUndefined();
    expect(pod.spec?.containers[1]?.env?.map((e) => e.name)).toEqual(['A', 'TF_CONFIG', 'TF_CONFIG']);
    expect(pod.spec?.containers[1]?.env?.[1]?.value).toBe('mine');
    // the default port went to the tensorflow container, not to index 0
    expect(pod.spec?.containers[0]?.ports).toBeUndefined();
    expect(pod.spec?.containers[1]?.ports).toEqual([{ name: 'tfjob-port', containerPort: 2222 }]);
  });

  it('a local (1-worker) job gets no TF_CONFIG at all', () => {
    const view = viewOf(newTFJob(1, 0));
    expect(workerPod(view).pod.spec?.containers[0]?.env).toBeUndefined();
  });

  it('warns when the template sets its own restartPolicy, and overrides it (ExitCode → Never)', () => {
    const raw = newTFJob(1, 0, { restartPolicy: 'ExitCode' });
    const worker = (raw.spec as { tfReplicaSpecs: { Worker: { template: { spec: Record<string, unknown> } } } }).tfReplicaSpecs.Worker;
    worker.template.spec.restartPolicy = 'Always';
    const { pod, events } = workerPod(viewOf(raw));
    expect(pod.spec?.restartPolicy).toBe('Never');
    expect(events).toEqual([
      {
        type: 'Warning',
        reason: 'SetPodTemplateRestartPolicy',
        message: 'Restart policy in pod template will be overwritten by restart policy in replica spec',
      },
    ]);
  });

  it('does not modify the job’s template (deep copy)', () => {
    const view = distJob();
    const before = JSON.stringify(view.replicaSpecs.Worker);
    workerPod(view);
    expect(JSON.stringify(view.replicaSpecs.Worker)).toBe(before);
  });

  it("drops a template's nodeName for a pod left to its named scheduler, and only then", () => {
    const view = distJob((template) => {
      (template.spec as Record<string, unknown>).nodeName = 'shared-0';
      (template.spec as Record<string, unknown>).schedulerName = 'second-scheduler';
    });
    const left = workerPod(view, 0, { unpinned: true }).pod;
    expect(left.spec?.nodeName).toBeUndefined();
    expect(left.spec?.schedulerName).toBe('second-scheduler');
    expect(left.metadata?.annotations).toBeUndefined();
    // tf-operator mode passes the template through.
    expect(workerPod(view, 0).pod.spec?.nodeName).toBe('shared-0');
  });

  it('places the pod when our scheduler chose a node, recording who placed it', () => {
    const { pod } = workerPod(distJob(), 0, { placement: { nodeName: 'node-7', placedBy: 'ours' } });
    expect(pod.spec?.nodeName).toBe('node-7');
    expect(pod.metadata?.annotations).toEqual({ 'tfjob-operator.kubeflow.org/placed-by': 'ours' });
  });

  it('leaves the binding to kube-scheduler, pinned to the chosen node, when the template has a constraint only it evaluates', () => {
    const view = distJob((t) => {
      const spec = t.spec as Record<string, unknown>;
      spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }];
      spec.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, { matchFields: [] }],
          },
        },
      };
    });
    const { pod } = workerPod(view, 0, { placement: { nodeName: 'node-7', placedBy: 'ours' } });
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(pod.metadata?.annotations).toEqual({
      'tfjob-operator.kubeflow.org/placed-by': 'ours',
      'tfjob-operator.kubeflow.org/placed-node': 'node-7',
    });
    // The pin is ANDed into each of the template's terms, which still apply.
    const pin = { key: 'metadata.name', operator: 'In', values: ['node-7'] };
    expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [pin] },
      { matchFields: [pin] },
    ]);
    expect(pod.spec?.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }]);
    // Without our scheduler (tf-operator mode) nothing is pinned.
    const unplaced = workerPod(view, 0).pod;
    expect(unplaced.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toHaveLength(2);
    expect(unplaced.metadata?.annotations).toBeUndefined();
  });

  it('namespace comes from the job, never from the template', () => {
    const view = distJob((t) => {
      t.metadata = { namespace: 'elsewhere', name: 'ignored' };
    });
    expect(workerPod(view).pod.metadata).toMatchObject({ name: 'dist-worker-0', namespace: 'ml' });
  });
});

describe('headless service (CreateNewService, compat §5.1 item 10)', () => {
  it('has the four replica labels as labels and selector, clusterIP None, the tfjob-port', () => {
    const view = distJob();
    expect(buildService(view, 'Worker', 0, view.replicaSpecs.Worker!)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'dist-worker-0',
        namespace: 'ml',
        labels: {
          'training.kubeflow.org/operator-name': 'tfjob-controller',
          'training.kubeflow.org/job-name': 'dist',
          'training.kubeflow.org/replica-type': 'worker',
          'training.kubeflow.org/replica-index': '0',
        },
        ownerReferences: [
          { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'dist', uid: JOB_UID, controller: true, blockOwnerDeletion: true },
        ],
      },
      spec: {
        clusterIP: 'None',
        selector: {
          'training.kubeflow.org/operator-name': 'tfjob-controller',
          'training.kubeflow.org/job-name': 'dist',
          'training.kubeflow.org/replica-type': 'worker',
          'training.kubeflow.org/replica-index': '0',
        },
        ports: [{ name: 'tfjob-port', port: 2222 }],
      },
    });
  });

  it('uses a custom tfjob-port', () => {
    const view = distJob((t) => {
      t.spec = { containers: [{ name: 'tensorflow', image: 'tf', ports: [{ name: 'tfjob-port', containerPort: 3333 }] }] };
    });
    expect(buildService(view, 'Worker', 1, view.replicaSpecs.Worker!).spec?.ports).toEqual([{ name: 'tfjob-port', port: 3333 }]);
  });
});
