// Pod logs on kwok nodes for tests: a file per pod, served through `pods/log` as a kubelet would
// (src/local-cluster/pod-logs.ts).
import { appendFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appendPodLog, servePodLogFile } from '../../src/local-cluster/pod-logs.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';
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

/** containerd's max_container_log_line_size default. */
const CRI_RECORD_BYTES = 16 * 1024;

/** CRI log records of `text` (ASCII: 16 Ki characters are 16 KiB), stamped from `at` on. */
export function criRecords(text: string, at: Date): string {
  const base = at.toISOString().slice(0, 19);
  const ms = at.getTime() % 1000;
  let n = 0;
  const stamp = () => `${base}.${String(ms).padStart(3, '0')}${String(n++).padStart(6, '0')}Z`;
  const out: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const ended = i < lines.length - 1;
    if (!ended && line === '') return;
    for (let s = 0; ; s += CRI_RECORD_BYTES) {
      const last = s + CRI_RECORD_BYTES >= line.length;
      out.push(`${stamp()} stdout ${last && ended ? 'F' : 'P'} ${line.slice(s, s + CRI_RECORD_BYTES)}\n`);
      if (last) break;
    }
  });
  return out.join('');
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
