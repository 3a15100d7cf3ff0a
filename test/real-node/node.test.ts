// The real node itself: a container runs and logs, a headless service resolves through cluster DNS
// from inside a pod (what TF_CONFIG's names need), and names outside the cluster domain fail at once.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSYBOX_IMAGE } from '../../lab/local-cluster/real-node/index.ts';
import { createNamespace, eventually } from '../support/kube.ts';
import { coreApi } from '../support/tfjob.ts';
import { podLog, realNodeName, realNodeSkipped, deleteNamespaceAndWait } from './support.ts';

function busybox(name: string, script: string, labels: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels },
    spec: {
      nodeName: realNodeName(),
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'tensorflow', image: BUSYBOX_IMAGE, imagePullPolicy: 'Never', command: ['sh', '-c', script] }],
    },
  };
}

async function finished(ns: string, name: string): Promise<string> {
  return eventually(
    async () => {
      const pod = await coreApi().readNamespacedPod({ name, namespace: ns });
      const phase = pod.status?.phase;
      return phase === 'Succeeded' || phase === 'Failed' ? phase : false;
    },
    { what: `pod ${name} finished`, timeoutMs: 60_000 },
  );
}

describe.skipIf(realNodeSkipped() !== undefined)('the real node', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await createNamespace('real-node');
  });
  afterAll(async () => {
    await deleteNamespaceAndWait(ns);
  });

  it('runs a container on the node and serves its log', async () => {
    await coreApi().createNamespacedPod({
      namespace: ns,
      body: busybox('hello', 'echo "hello from $(hostname)"; cat /proc/1/cgroup | head -3'),
    });
    expect(await finished(ns, 'hello')).toBe('Succeeded');
    expect(await podLog(ns, 'hello')).toContain('hello from hello');
    const pod = await coreApi().readNamespacedPod({ name: 'hello', namespace: ns });
    expect(pod.status?.podIP).toMatch(/^10\.87\.0\.\d+$/);
  });

  it('resolves a headless service from a pod, and nothing outside the cluster domain', async () => {
    await coreApi().createNamespacedPod({ namespace: ns, body: busybox('target', 'sleep 600', { app: 'target' }) });
    await coreApi().createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'target' }, spec: { clusterIP: 'None', selector: { app: 'target' }, ports: [{ port: 2222 }] } },
    });
    const target = await eventually(
      async () => {
        const p = await coreApi().readNamespacedPod({ name: 'target', namespace: ns });
        return p.status?.phase === 'Running' && p.status.podIP !== undefined ? p.status.podIP : false;
      },
      { what: 'target running', timeoutMs: 60_000 },
    );
    const script = [
      `for i in $(seq 30); do nslookup target.${ns}.svc.cluster.local && break; sleep 1; done`,
      'if nslookup example.com; then echo OUTSIDE-RESOLVED; else echo OUTSIDE-REFUSED; fi',
    ].join('\n');
    await coreApi().createNamespacedPod({ namespace: ns, body: busybox('lookup', script) });
    await finished(ns, 'lookup');
    const log = await podLog(ns, 'lookup');
    expect(log).toContain(target);
    expect(log).toContain('OUTSIDE-REFUSED');
  });
});
