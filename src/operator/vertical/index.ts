// The operator's vertical stage (--vertical-policy): built from the operator's parts, or none when off.
import type { OperatorConfig } from '../config.ts';
import type { OperatorCaches } from '../informers.ts';
import { BY_JOB } from '../informers.ts';
import { KubePodResizer } from '../../progress/follower/cpu-resize.ts';
import type { ProgressLoop } from '../../progress/follower/loop.ts';
import type { KubeEventRecorder } from '../../runtime/events.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import { KubeletCpuUsage, KubeNodeCpu, KubeVerticalStatusWriter, putStatusField } from './kube.ts';
import { MigrationStep } from '../migration/step.ts';
import type { MigrationSteering } from '../migration/steering.ts';
import { KubePodRemover } from '../scheduling/pod-remover.ts';
import type { Registry } from 'prom-client';
import { VerticalStage } from './stage.ts';

export { VerticalStage } from './stage.ts';
export * from './policy.ts';

export interface VerticalParts {
  readonly clients: KubeClients;
  readonly caches: OperatorCaches;
  readonly progress: ProgressLoop | undefined;
  readonly recorder: KubeEventRecorder;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** specon: where migrated workers go, and the scheduling pass's last view of the nodes. */
  readonly steering?: MigrationSteering;
}

function migrationStep(parts: VerticalParts): MigrationStep | undefined {
  const steering = parts.steering;
  if (steering === undefined) return undefined;
  const log = parts.logger.child({ component: 'migration' });
  return new MigrationStep({
    steering,
    remover: new KubePodRemover(parts.clients, log),
    status: { write: (job, status) => putStatusField(parts.clients, job, 'migration', status) },
    event: (job, type, reason, message) => {
      parts.recorder.event(job, type, reason, message);
    },
    log,
    ...(parts.registry === undefined ? {} : { registry: parts.registry }),
  });
}

export function verticalStage(config: OperatorConfig, parts: VerticalParts): VerticalStage | undefined {
  const policy = config.verticalPolicy;
  if (policy === 'none') return undefined;
  const migration = policy === 'specon' ? migrationStep(parts) : undefined;
  const log = parts.logger.child({ component: 'vertical' });
  const flowcon = policy === 'flowcon' || policy === 'specon';
  const usage = flowcon && config.flowconCpu === 'used' ? new KubeletCpuUsage(parts.clients, log) : undefined;
  return new VerticalStage({
    policy,
    jobs: () => parts.caches.tfjobs.list(),
    podsOf: (key) => parts.caches.pods.byIndex(BY_JOB, key),
    series: (key) => parts.progress?.seriesOf(key),
    nodes: new KubeNodeCpu(parts.clients),
    resizer: new KubePodResizer(parts.clients),
    status: new KubeVerticalStatusWriter(parts.clients),
    event: (job, type, reason, message) => {
      parts.recorder.event(job, type, reason, message);
    },
    log,
    intervalMs: config.verticalInterval / config.timeScale,
    flowcon: { alpha: config.flowconAlpha },
    ...(migration === undefined ? {} : { migration }),
    ...(usage === undefined ? {} : { usage }),
  });
}
