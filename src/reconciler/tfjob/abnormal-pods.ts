// Warnings that echo why an active pod is unhealthy (tf-operator's RecordAbnormalPods), so
// `kubectl describe tfjob` shows ImagePullBackOff, OOMKilled, Unschedulable and the like.

import type { ContainerStatus, Pod } from '../../api/v1/k8s-types.ts';
import { CONDITION_TRUE } from '../../api/v1/conditions.ts';
import type { JobEvent } from './events.ts';
import { messages, warning } from './events.ts';
import { isPodActive, podName } from './pod-state.ts';
import { parseTime } from './time.ts';

function containerEvents(pod: Pod, status: ContainerStatus): JobEvent[] {
  const events: JobEvent[] = [];
  const terminated = status.state?.terminated;
  if (terminated && terminated.exitCode !== 0) {
    events.push(
      warning(
        terminated.reason ?? '',
        messages.abnormalTerminated(podName(pod), status.name, terminated.exitCode, terminated.message ?? ''),
      ),
    );
  }
  const waiting = status.state?.waiting;
  if (waiting?.message) {
    events.push(warning(waiting.reason ?? '', messages.abnormalWaiting(podName(pod), status.name, waiting.message)));
  }
  return events;
}

/** For active pods: container problems first; init containers if no container status yet; else the latest pod condition if not True. */
export function abnormalPodEvents(pods: readonly Pod[]): JobEvent[] {
  const events: JobEvent[] = [];
  for (const pod of pods.filter(isPodActive)) {
    const containers = pod.status?.containerStatuses ?? [];
    const inits = pod.status?.initContainerStatuses ?? [];
    if (containers.length > 0) {
      for (const s of containers) events.push(...containerEvents(pod, s));
      continue;
    }
    if (inits.length > 0) {
      for (const s of inits) events.push(...containerEvents(pod, s));
      continue;
    }
    const conditions = [...(pod.status?.conditions ?? [])].sort(
      (a, b) => (parseTime(b.lastTransitionTime) ?? 0) - (parseTime(a.lastTransitionTime) ?? 0),
    );
    const latest = conditions[0];
    if (!latest || latest.status === CONDITION_TRUE) continue;
    events.push(warning(latest.reason ?? '', messages.abnormalCondition(podName(pod), latest.message ?? '')));
  }
  return events;
}
