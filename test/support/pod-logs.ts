// Pod logs on kwok nodes: kwok serves `pods/log` from a file in CRI log format for every pod that has
// a `Logs` object of its name (src/local-cluster/kwok-logs-crd.yaml). Tests write the file; the API
// server then answers `kubectl logs` and the operator's log reads as a kubelet would.
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { adminKubeConfig } from './kube.ts';

export interface PodLog {
  /** Appends lines as the container's stdout, stamped now (or at `at`). */
  write(lines: readonly string[], at?: Date): void;
}

export async function servePodLog(namespace: string, pod: string, container = 'tensorflow'): Promise<PodLog> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pod-log-')), `${pod}.log`);
  writeFileSync(file, '');
  const clients = new KubeClients(adminKubeConfig(), { rateLimit: { qps: 0, burst: 1 } });
  await clients.request('POST', `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${namespace}/logs`, {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Logs',
    metadata: { name: pod, namespace },
    spec: { logs: [{ containers: [container], logsFile: file, follow: true }] },
  });
  return {
    write(lines, at = new Date()) {
      // CRI format: RFC 3339 with nanoseconds, the stream, F(ull line), the text.
      const stamp = at.toISOString().replace('Z', '000000Z');
      appendFileSync(file, lines.map((l) => `${stamp} stdout F ${l}\n`).join(''));
    },
  };
}
