// Pod logs on kwok nodes: kwok serves `pods/log` for a pod that has a `Logs` object of its name
// (kwok-logs-crd.yaml) from a file in CRI log format, as a kubelet serves a container's log. Used by
// the training emulator (jobs printing their progress) and by tests.
import { appendFileSync, writeFileSync } from 'node:fs';
import type { KubeClients } from '../../src/runtime/kube-client.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

/** Creates (or points at a new file) the Logs object of `pod`; `file` is emptied first. */
export async function servePodLogFile(
  clients: KubeClients,
  namespace: string,
  pod: string,
  file: string,
  container = 'tensorflow',
): Promise<void> {
  writeFileSync(file, '');
  const spec = { logs: [{ containers: [container], logsFile: file, follow: true }] };
  const collection = `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${namespace}/logs`;
  try {
    await clients.request('POST', collection, {
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Logs',
      metadata: { name: pod, namespace },
      spec,
    });
  } catch (err) {
    // Left by an earlier pod of the same name: the new pod's log is the new file.
    if (httpStatus(err) !== 409) throw err;
    await clients.request('PATCH', `${collection}/${pod}`, { spec }, 'application/merge-patch+json');
  }
}

/** Appends lines as the container's stdout: RFC 3339 with nanoseconds, the stream, F(ull line), the text. */
export function appendPodLog(file: string, lines: readonly string[], at = new Date()): void {
  const stamp = at.toISOString().replace('Z', '000000Z');
  appendFileSync(file, lines.map((l) => `${stamp} stdout F ${l}\n`).join(''));
}
