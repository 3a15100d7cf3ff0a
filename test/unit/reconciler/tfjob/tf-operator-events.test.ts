// Every event tf-operator writes for a case we share, per pinned release (upstream-events.ts), against
// the event our reconciler emits when driven into that case. The differences between releases are
// listed here and in docs/differences-from-tf-operator.md; any other mismatch fails.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { ContainerStatus, Pod } from '../../../../src/api/v1/k8s-types.ts';
import type { JobEvent } from '../../../../src/reconciler/tfjob/events.ts';
import { writeEvents } from '../../../../src/reconciler/tfjob/events.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { REPO } from '../../api/helpers/fixtures.ts';
import { at, newPod, newTFJob, services } from './builders.ts';
import { UPSTREAM_EVENTS, UPSTREAM_VERSIONS, goSprintf, type UpstreamVersion } from './upstream-events.ts';

type CaseKey = keyof typeof UPSTREAM_EVENTS;

/** What we emitted in the case, the arguments upstream's format takes there, and the reason a pod carried. */
interface Driven {
  readonly events: readonly JobEvent[];
  readonly args: readonly (string | number)[];
  readonly podReason?: string;
}

function run(job: Record<string, unknown>, pods: Pod[] = [], seconds = 0): readonly JobEvent[] {
  return reconcileTFJob({ job: toTFJobEntry(job), pods, services: services('Worker', 2), now: at(seconds) }).events;
}

function withTemplateRestartPolicy(job: Record<string, unknown>): Record<string, unknown> {
  const worker = (job.spec as { tfReplicaSpecs: { Worker: { template: { spec: Record<string, unknown> } } } }).tfReplicaSpecs.Worker;
  worker.template.spec.restartPolicy = 'OnFailure';
  return job;
}

function podWith(phase: string, status: Partial<Pod['status']> & { containerStatuses?: ContainerStatus[] }): Pod {
  const pod = newPod('Worker', 0, { phase });
  pod.status = { ...pod.status, ...status };
  return pod;
}

const failedWorker1 = () => [newPod('Worker', 0, { phase: 'Running' }), newPod('Worker', 1, { phase: 'Failed', exitCode: 1 })];

function resumedEvents(): readonly JobEvent[] {
  const suspended = reconcileTFJob({
    job: toTFJobEntry(newTFJob(1, 0, { runPolicy: { suspend: true } })),
    pods: [],
    services: [],
    now: at(0),
  });
  return run(newTFJob(1, 0, { runPolicy: { suspend: false }, status: suspended.status }), [], 60);
}

function validationEvents(): Driven {
  const job = newTFJob(1, 0);
  (job.spec as { tfReplicaSpecs: Record<string, unknown> }).tfReplicaSpecs.Workers = { replicas: 1 };
  const events = run(job);
  const because = /^TFJob failed validation because (.*)$/s.exec(events[0]?.message ?? '')?.[1] ?? '<no validation event>';
  return { events, args: [because] };
}

const terminated: ContainerStatus = {
  name: 'tensorflow',
  image: 'x',
  imageID: '',
  ready: false,
  restartCount: 1,
  state: { terminated: { exitCode: 137, reason: 'OOMKilled', message: 'out of memory' } },
};
const waiting: ContainerStatus = {
  ...terminated,
  state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } },
};
const unschedulable = {
  type: 'PodScheduled',
  status: 'False',
  reason: 'Unschedulable',
  message: '0/3 nodes are available: 3 Insufficient cpu.',
  lastTransitionTime: at(0),
};

/** Our reconciler (and, for API writes, the event builders the controller uses), driven into each case. */
const driven: Record<CaseKey, () => Driven> = {
  templateRestartPolicy: () => ({ events: run(withTemplateRestartPolicy(newTFJob(1, 0))), args: [] }),
  exitedWithCode: () => ({
    events: run(newTFJob(2, 0, { restartPolicy: 'Never' }), [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Succeeded', exitCode: 0 }),
    ]),
    args: ['default', 'test-tfjob-worker-1', 0],
  }),
  restarting: () => ({ events: run(newTFJob(2, 0, { restartPolicy: 'OnFailure' }), failedWorker1()), args: ['test-tfjob', 'Worker'] }),
  permanentExitCode: () => ({
    events: run(newTFJob(2, 0, { restartPolicy: 'ExitCode' }), failedWorker1()),
    args: ['test-tfjob', 'Worker'],
  }),
  succeeded: () => ({
    events: run(newTFJob(1, 0), [newPod('Worker', 0, { phase: 'Succeeded', exitCode: 0 })]),
    args: ['default', 'test-tfjob'],
  }),
  failedReplicas: () => ({
    events: run(newTFJob(2, 0, { restartPolicy: 'Never' }), failedWorker1()),
    args: ['default', 'test-tfjob', 1, 'Worker'],
  }),
  suspended: () => ({ events: run(newTFJob(1, 0, { runPolicy: { suspend: true } })), args: ['TFJob', 'test-tfjob'] }),
  resumed: () => ({ events: resumedEvents(), args: ['TFJob', 'test-tfjob'] }),
  backoffLimit: () => ({
    events: run(newTFJob(2, 0, { runPolicy: { backoffLimit: 0 } }), failedWorker1()),
    args: ['test-tfjob'],
  }),
  activeDeadline: () => ({
    events: run(
      newTFJob(1, 0, { runPolicy: { activeDeadlineSeconds: 2 }, status: { startTime: '2024-09-10T10:00:00Z' } }),
      [newPod('Worker', 0, { phase: 'Running' })],
      2,
    ),
    args: ['test-tfjob'],
  }),
  failedValidation: validationEvents,
  abnormalTerminated: () => ({
    events: run(newTFJob(1, 0), [podWith('Running', { containerStatuses: [terminated] })]),
    args: ['test-tfjob-worker-0', 'tensorflow', 137, 'out of memory'],
    podReason: 'OOMKilled',
  }),
  abnormalWaiting: () => ({
    events: run(newTFJob(1, 0), [podWith('Pending', { containerStatuses: [waiting] })]),
    args: ['test-tfjob-worker-0', 'tensorflow', 'Back-off pulling image "x"'],
    podReason: 'ImagePullBackOff',
  }),
  abnormalCondition: () => ({
    events: run(newTFJob(1, 0), [podWith('Pending', { conditions: [unschedulable] })]),
    args: ['test-tfjob-worker-0', unschedulable.message],
    podReason: 'Unschedulable',
  }),
  createdPod: () => ({ events: [writeEvents.createdPod('j-worker-0')], args: ['j-worker-0'] }),
  failedCreatePod: () => ({
    events: [writeEvents.failedCreatePod('pods "j-worker-0" is forbidden')],
    args: ['pods "j-worker-0" is forbidden'],
  }),
  deletedPod: () => ({ events: [writeEvents.deletedPod('j-worker-0')], args: ['j-worker-0'] }),
  failedDeletePod: () => ({ events: [writeEvents.failedDeletePod('etcdserver: timeout')], args: ['etcdserver: timeout'] }),
  createdService: () => ({ events: [writeEvents.createdService('j-worker-0')], args: ['j-worker-0'] }),
  failedCreateService: () => ({ events: [writeEvents.failedCreateService('quota exceeded')], args: ['quota exceeded'] }),
  deletedService: () => ({ events: [writeEvents.deletedService('j-worker-0')], args: ['j-worker-0'] }),
  failedDeleteService: () => ({ events: [writeEvents.failedDeleteService('etcdserver: timeout')], args: ['etcdserver: timeout'] }),
  deletedJob: () => ({ events: [writeEvents.deletedJob('j')], args: ['j'] }),
  failedDeleteJob: () => ({ events: [writeEvents.failedDeleteJob('etcdserver: timeout')], args: ['etcdserver: timeout'] }),
};

/**
 * Where the releases disagree we follow v1.8.1 (the baseline; v1.9.0 agrees), except the validation
 * event, which only v1.7.0 wrote (v1.8+ refused such jobs in its webhook, which we do not run).
 */
const DOCUMENTED_DIFFERENCES = [
  'templateRestartPolicy@v1.7.0: Warning SettedPodTemplateRestartPolicy, ours Warning SetPodTemplateRestartPolicy',
  'permanentExitCode@v1.7.0: no event, ours Warning TFJobFailed',
  'failedValidation@v1.8.1: no event, ours Warning TFJobFailedValidation',
  'failedValidation@v1.9.0: no event, ours Warning TFJobFailedValidation',
];

const cases = Object.keys(UPSTREAM_EVENTS) as CaseKey[];

/** The message every release that writes the case writes (the formats agree: checked below). */
function upstreamMessage(key: CaseKey, d: Driven): string {
  const format = UPSTREAM_VERSIONS.map((v) => UPSTREAM_EVENTS[key].byVersion[v]?.format).find((f) => f !== undefined);
  return goSprintf(format ?? '', d.args);
}

function ourEvent(key: CaseKey, d: Driven): JobEvent | undefined {
  const message = upstreamMessage(key, d);
  return d.events.find((e) => e.message === message);
}

function mismatch(key: CaseKey, version: UpstreamVersion): string | undefined {
  const d = driven[key]();
  const theirs = UPSTREAM_EVENTS[key].byVersion[version];
  const ours = ourEvent(key, d);
  const show = (e: { type: string; reason: string } | undefined) => (e ? `${e.type} ${e.reason}` : 'no event');
  const expectedReason = theirs?.reason.startsWith('<') === true ? d.podReason : theirs?.reason;
  const expected = theirs ? { type: theirs.type, reason: expectedReason ?? '' } : undefined;
  if (expected?.type === ours?.type && expected?.reason === ours?.reason) return undefined;
  return `${key}@${version}: ${show(expected)}, ours ${show(ours)}`;
}

describe("tf-operator's event reasons and messages (v1.7.0, v1.8.1, v1.9.0)", () => {
  it('states one message format per case across the releases that write it', () => {
    for (const key of cases) {
      const formats = new Set(UPSTREAM_VERSIONS.map((v) => UPSTREAM_EVENTS[key].byVersion[v]?.format).filter((f) => f !== undefined));
      expect(formats.size, key).toBe(1);
    }
  });

  it.each(cases)('%s: we emit the message byte for byte', (key) => {
    const d = driven[key]();
    expect(
      d.events.map((e) => e.message),
      `events emitted: ${JSON.stringify(d.events)}`,
    ).toContain(upstreamMessage(key, d));
  });

  it.each(cases)('%s: type and reason as v1.8.1 and v1.9.0 (and v1.7.0 unless documented)', (key) => {
    const found = UPSTREAM_VERSIONS.map((v) => mismatch(key, v)).filter((m) => m !== undefined);
    expect(found).toEqual(DOCUMENTED_DIFFERENCES.filter((m) => m.startsWith(`${key}@`)));
  });

  it('templateRestartPolicy: the same event when our scheduler places the pods', () => {
    const job = withTemplateRestartPolicy(newTFJob(1, 0));
    const placements = { 'test-tfjob-worker-0': { nodeName: 'node-1', placedBy: 'ours' } };
    const scheduling = { admitted: true, placements, requirePlacement: true };
    const plan = reconcileTFJob({ job: toTFJobEntry(job), pods: [], services: [], now: at(0), scheduling });
    expect(plan.actions.filter((a) => a.kind === 'createPod')).toHaveLength(1);
    const theirs = UPSTREAM_EVENTS.templateRestartPolicy.byVersion['v1.8.1'];
    expect(plan.events).toContainEqual({ type: theirs.type, reason: theirs.reason, message: theirs.format });
  });

  it('the differences between releases are written in docs/differences-from-tf-operator.md', () => {
    const doc = readFileSync(`${REPO}/docs/differences-from-tf-operator.md`, 'utf8');
    for (const reason of ['SettedPodTemplateRestartPolicy', 'SetPodTemplateRestartPolicy', 'TFJobFailedValidation'])
      expect(doc).toContain(reason);
    expect(doc).toContain('is failing because');
  });
});
