// Pod logs on kwok nodes for tests: a file per pod, served through `pods/log` as a kubelet would
// (lab/local-cluster/pod-logs.ts).
import { appendFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appendPodLog, servePodLogFile } from '../../lab/local-cluster/pod-logs.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { criSplit } from './cri-records.ts';
import { adminKubeConfig } from './kube.ts';

export interface PodLog {
  /** Appends lines as the container's stdout, stamped now (or at `at`). */
  write(lines: readonly string[], at?: Date): void;
  /**
   * Appends raw stdout as containerd writes it: a line longer than 16 KiB, or not ended yet, becomes
   * partial (`P`) records of 16 KiB, each with its own timestamp (nanoseconds apart), `F` ends a line.
   */
  writeOutput(text: string, at?: Date): void;
  readonly file: string;
}

/** CRI log records of `text`, stamped from `at` on (nanoseconds apart). */
export function criRecords(text: string, at: Date): string {
  const base = at.toISOString().slice(0, 19);
  const ms = at.getTime() % 1000;
  let n = 0;
  const stamp = () => `${base}.${String(ms).padStart(3, '0')}${String(n++).padStart(6, '0')}Z`;
  return criSplit(text)
    .map((r) => `${stamp()} stdout ${r.partial ? 'P' : 'F'} ${r.text}\n`)
    .join('');
}

export async function servePodLog(namespace: string, pod: string, container = 'tensorflow'): Promise<PodLog> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'pod-log-')), `${pod}.log`);
  const clients = new KubeClients(adminKubeConfig(), { rateLimit: { qps: 0, burst: 1 } });
  await servePodLogFile(clients, namespace, pod, file, container);
  return {
    file,
    write(lines, at) {
      appendPodLog(file, lines, at);
    },
    writeOutput(text, at = new Date()) {
      appendFileSync(file, criRecords(text, at));
    },
  };
}
