// Pod logs on kwok nodes for tests: a file per pod, served through `pods/log` as a kubelet would
// (src/local-cluster/pod-logs.ts).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appendPodLog, servePodLogFile } from '../../src/local-cluster/pod-logs.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { adminKubeConfig } from './kube.ts';

export interface PodLog {
  /** Appends lines as the container's stdout, stamped now (or at `at`). */
  write(lines: readonly string[], at?: Date): void;
}

export async function servePodLog(namespace: string, pod: string, container = 'tensorflow'): Promise<PodLog> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pod-log-')), `${pod}.log`);
  const clients = new KubeClients(adminKubeConfig(), { rateLimit: { qps: 0, burst: 1 } });
  await servePodLogFile(clients, namespace, pod, file, container);
  return {
    write(lines, at) {
      appendPodLog(file, lines, at);
    },
  };
}
