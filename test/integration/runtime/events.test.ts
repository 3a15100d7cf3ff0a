// The event recorder against a real kube-apiserver: events are written and repeats become a series;
// under a burst, pending writes are bounded (new events dropped) and a stop with a deadline does not
// wait for a backlog that the client rate limit would take minutes to write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, EventsV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { KubeEventRecorder } from '../../../src/runtime/events.ts';
import { KubeClients } from '../../../src/runtime/kube-client.ts';
import { silentLogger } from '../../../src/runtime/logger.ts';
import { adminKubeConfig, createNamespace, deleteNamespace } from '../../support/kube.ts';

describe('KubeEventRecorder', () => {
  let ns: string;
  let subject: V1ConfigMap;
  const events = async () => (await adminKubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns })).items;

  beforeAll(async () => {
    ns = await createNamespace('events');
    subject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...(await adminKubeConfig()
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'subject' } } })),
    };
  });
  afterAll(async () => {
    await deleteNamespace(ns);
  });

  it('writes events and counts repeats in one series', async () => {
    const recorder = new KubeEventRecorder(new KubeClients(adminKubeConfig()), {
      controller: 'events-test',
      instance: 'a',
      logger: silentLogger(),
    });
    recorder.event(subject, 'Normal', 'Once', 'first');
    recorder.event(subject, 'Normal', 'Twice', 'again');
    recorder.event(subject, 'Normal', 'Twice', 'again');
    await recorder.flush();
    const written = await events();
    expect(written.map((e) => e.reason).sort()).toEqual(['Once', 'Twice']);
    expect(written.find((e) => e.reason === 'Twice')?.series?.count).toBe(2);
    expect(written.every((e) => e.regarding?.uid === subject.metadata?.uid && e.reportingController === 'events-test')).toBe(true);
    expect(recorder.dropped).toBe(0);
  });

  it('drops new routine events beyond the pending bound (a decision still has room), and a stop with a deadline drops the backlog', async () => {
    // 2 writes a second: 40 events would take 20 s to write.
    const slow = new KubeClients(adminKubeConfig(), { rateLimit: { qps: 2, burst: 1 } });
    const recorder = new KubeEventRecorder(slow, {
      controller: 'events-test',
      instance: 'b',
      logger: silentLogger(),
      maxPending: 10,
      routineReasons: new Set(['SuccessfulCreatePod']),
    });
    for (let i = 0; i < 40; i++) recorder.event(subject, 'Normal', 'SuccessfulCreatePod', `Created pod: burst-${i}`);
    expect(recorder.dropped).toBe(30);
    // What a user asks about is not dropped with them: it has twice the room.
    recorder.event(subject, 'Warning', 'Preempted', 'Scaled in by 1 worker(s) to admit another job');
    expect(recorder.dropped).toBe(30);
    for (let i = 0; i < 20; i++) recorder.event(subject, 'Normal', `Decision${i}`, `decision ${i}`);
    expect(recorder.dropped).toBe(41);
    const started = performance.now();
    await recorder.flush(1_000);
    const seconds = (performance.now() - started) / 1000;
    // Without the deadline the ten pending writes take 5 s; with it, the stop returns once the
    // writes already in flight (at most 4, at 2 a second) are done.
    expect(seconds).toBeLessThan(4.5);
    // Some of the twenty were written, the rest dropped: every event is accounted for once.
    const written = (await events()).filter(
      (e) => e.reason === 'SuccessfulCreatePod' || e.reason === 'Preempted' || e.reason?.startsWith('Decision') === true,
    ).length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(20);
    expect(written + recorder.dropped).toBe(61);
  });

  it('writes at most 25 new events about one object (client-go spam filter; repeats are free), and combines similar ones', async () => {
    const other = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...(await adminKubeConfig()
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'noisy' } } })),
    };
    const recorder = new KubeEventRecorder(new KubeClients(adminKubeConfig()), {
      controller: 'events-test',
      instance: 'c',
      logger: silentLogger(),
    });
    // Twelve Waiting events whose message changes: nine series of their own, then one combined.
    for (let i = 0; i < 12; i++) recorder.event(other, 'Normal', 'Waiting', `needs ${i} cpu`);
    // Then distinct reasons, until the object's budget of 25 is spent.
    for (let i = 0; i < 20; i++) recorder.event(other, 'Normal', `Reason${i}`, 'something happened');
    await recorder.flush();
    const about = (await events()).filter((e) => e.regarding?.uid === other.metadata?.uid);
    const waiting = about.filter((e) => e.reason === 'Waiting');
    expect(waiting).toHaveLength(10);
    const combined = waiting.filter((e) => e.note?.startsWith('(combined from similar events): '));
    expect(combined.map((e) => [e.note, e.series?.count])).toEqual([['(combined from similar events): needs 9 cpu', 3]]);
    // Ten event objects so far (the two repeats of the combined one only raised its count): 15 more fit.
    expect(about.filter((e) => e.reason?.startsWith('Reason'))).toHaveLength(25 - 10);
    expect(recorder.filtered).toBe(20 - 15);
  });

  const ROUTINE = ['SuccessfulCreatePod', 'SuccessfulDeletePod', 'SuccessfulCreateService', 'SuccessfulDeleteService'];
  it('routine events have a budget of their own: pods created and deleted do not starve a later decision', async () => {
    const job = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...(await adminKubeConfig()
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'churning' } } })),
    };
    const recorder = new KubeEventRecorder(new KubeClients(adminKubeConfig()), {
      controller: 'events-test',
      instance: 'd',
      logger: silentLogger(),
      routineReasons: new Set(ROUTINE),
    });
    // A job suspended and resumed a few times: 30 distinct routine events (under 10 per reason: none
    // combined), then its decisions.
    for (let i = 0; i < 30; i++) recorder.event(job, 'Normal', ROUTINE[i % 4]!, `churning-worker-${i}`);
    recorder.event(job, 'Normal', 'Preempted', 'Scaled in by 2 worker(s)');
    recorder.event(job, 'Normal', 'TFJobSucceeded', 'TFJob churning successfully completed.');
    await recorder.flush();
    const about = (await events()).filter((e) => e.regarding?.uid === job.metadata?.uid);
    expect(about.filter((e) => ROUTINE.includes(e.reason ?? ''))).toHaveLength(25);
    expect(about.filter((e) => !ROUTINE.includes(e.reason ?? '')).map((e) => e.reason)).toEqual(
      expect.arrayContaining(['Preempted', 'TFJobSucceeded']),
    );
    expect(recorder.filtered).toBe(30 - 25);
  });
});
