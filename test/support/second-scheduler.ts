// A second kube-scheduler on the shared control plane, with one profile under another name: what a
// cluster running Volcano, YuniKorn or scheduler-plugins' coscheduling beside kube-scheduler looks
// like to the operator (pods naming it are bound by it, never by kube-scheduler nor by us). Its PID
// goes into the cluster's PID file, so the cluster's watchdog kills it if the test run dies.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { freePort } from '../../lab/local-cluster/ports.ts';
import { ManagedProcess } from '../../lab/local-cluster/process.ts';
import { adminKubeConfig, clusterState } from './kube.ts';

export interface SecondScheduler {
  readonly name: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startSecondScheduler(schedulerName: string): Promise<SecondScheduler> {
  const state = clusterState();
  const dir = mkdtempSync(path.join(os.tmpdir(), `${schedulerName}-`));
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1',
      'kind: KubeSchedulerConfiguration',
      'clientConnection:',
      `  kubeconfig: ${state.kubeconfig}`,
      'leaderElection:',
      '  leaderElect: false',
      'profiles:',
      `  - schedulerName: ${schedulerName}`,
      '',
    ].join('\n'),
  );
  // The pinned kube-scheduler sits next to the pinned kubectl.
  const binary = path.join(path.dirname(state.kubectl), 'kube-scheduler');
  const process = ManagedProcess.start(
    schedulerName,
    binary,
    [
      `--config=${config}`,
      `--authentication-kubeconfig=${state.kubeconfig}`,
      `--authorization-kubeconfig=${state.kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
    ],
    { logFile: path.join(dir, 'scheduler.log') },
  );
  appendFileSync(path.join(state.workDir, 'pids'), `${process.pid}\n`);
  return {
    name: schedulerName,
    process,
    stop: async () => {
      await process.stop(10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The component that reported a pod's `Scheduled` event (kube-scheduler reports under its profile's name). */
export async function scheduledBy(namespace: string, pod: string): Promise<string | undefined> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${pod}` });
  const scheduled = events.items.find((e: CoreV1Event) => e.reason === 'Scheduled');
  if (scheduled === undefined) return undefined;
  return scheduled.reportingComponent || scheduled.source?.component;
}
