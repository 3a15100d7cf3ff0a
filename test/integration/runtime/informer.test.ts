// The informer against a real kube-apiserver: sync, events, 410 Gone recovery, list failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { Informer, type InformerEvent, type ListerWatcher, type ListPage } from '../../../src/runtime/informer.ts';
import { KubeClients } from '../../../src/runtime/kube-client.ts';
import { silentLogger } from '../../../src/runtime/logger.ts';
import { adminKubeConfig, compactEtcd, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';

function configMapLister(clients: KubeClients, namespace: string): ListerWatcher<V1ConfigMap> {
  const core = clients.api(CoreV1Api);
  return {
    list: ({ limit, continueToken }) =>
      core.listNamespacedConfigMap({ namespace, limit, _continue: continueToken, labelSelector: 'app=informer-test' }),
    watchPath: `/api/v1/namespaces/${namespace}/configmaps`,
    labelSelector: 'app=informer-test',
  };
}

/**
 * `real`, except that its first list answers `firstPage(page)` instead of the API server's page;
 * `lists()` says how many lists were made.
 */
function firstListTampered(
  real: ListerWatcher<V1ConfigMap>,
  firstPage: (page: ListPage<V1ConfigMap>) => ListPage<V1ConfigMap>,
): { lw: ListerWatcher<V1ConfigMap>; lists: () => number } {
  let lists = 0;
  const lw: ListerWatcher<V1ConfigMap> = {
    ...real,
    list: async (opts) => {
      lists += 1;
      const page = await real.list(opts);
      return lists > 1 ? page : firstPage(page);
    },
  };
  return { lw, lists: () => lists };
}

describe('Informer', () => {
  let ns: string;
  const kc = () => adminKubeConfig();
  const core = () => kc().makeApiClient(CoreV1Api);
  const cm = (name: string, data: Record<string, string> = {}) => ({ metadata: { name, labels: { app: 'informer-test' } }, data });

  beforeAll(async () => {
    ns = await createNamespace('informer');
  });
  afterAll(async () => {
    await deleteNamespace(ns);
  });

  it('lists in pages, then delivers add, update and delete events in order', async () => {
    for (let i = 0; i < 7; i++) await core().createNamespacedConfigMap({ namespace: ns, body: cm(`pre-${i}`) });
    await core().createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'unlabelled' } } });
    const clients = new KubeClients(kc());
    const informer = new Informer(kc(), configMapLister(clients, ns), { name: 'cm', logger: silentLogger(), pageSize: 3 });
    const events: string[] = [];
    informer.on((type: InformerEvent, obj) => events.push(`${type} ${obj.metadata?.name ?? ''}`));
    informer.start();
    await informer.waitForSync();
    expect(informer.store.size).toBe(7);
    expect(clients.requests.byMethod().GET).toBe(3); // 3 pages of 3

    await core().createNamespacedConfigMap({ namespace: ns, body: cm('live', { v: '1' }) });
    await core().replaceNamespacedConfigMap({ name: 'live', namespace: ns, body: cm('live', { v: '2' }) });
    await core().deleteNamespacedConfigMap({ name: 'live', namespace: ns });
    await eventually(async () => events.includes('delete live'), { what: 'delete event' });
    expect(events.filter((e) => e.endsWith(' live'))).toEqual(['add live', 'update live', 'delete live']);
    expect(informer.store.get(`${ns}/live`)).toBeUndefined();
    expect(Object.isFrozen(informer.store.get(`${ns}/pre-0`))).toBe(true);
    informer.stop();
  });

  it('relists after 410 Gone and emits deletes for objects that vanished meanwhile', async () => {
    const clients = new KubeClients(kc());
    const real = configMapLister(clients, ns);
    await core().createNamespacedConfigMap({ namespace: ns, body: cm('ghost') });
    await compactEtcd();
    // The first list claims a resourceVersion far in the past and includes an object that no longer
    // exists: the watch from that RV fails with 410 Gone and the informer must relist.
    const { lw, lists } = firstListTampered(real, (page) => ({
      items: [...page.items, { ...cm('vanished'), metadata: { ...cm('vanished').metadata, namespace: ns, resourceVersion: '2' } }],
      metadata: { resourceVersion: '2' },
    }));
    const watchEvents: string[] = [];
    const informer = new Informer(kc(), lw, {
      name: 'cm-gone',
      logger: silentLogger(),
      backoff: { initialMs: 50, maxMs: 200 },
      onWatchEvent: (what) => watchEvents.push(what),
    });
    const deleted: string[] = [];
    informer.on((type, obj) => {
      if (type === 'delete') deleted.push(obj.metadata?.name ?? '');
    });
    informer.start();
    await informer.waitForSync();
    await eventually(async () => deleted.includes('vanished'), { what: 'synthetic delete after relist', timeoutMs: 20_000 });
    expect(watchEvents).toContain('gone');
    expect(lists()).toBeGreaterThanOrEqual(2);
    expect(informer.store.get(`${ns}/ghost`)).toBeDefined();
    // After recovering, live events flow again.
    await core().createNamespacedConfigMap({ namespace: ns, body: cm('after-gone') });
    await eventually(async () => informer.store.get(`${ns}/after-gone`) !== undefined, { what: 'event after recovery' });
    informer.stop();
  });

  it('retries a failing list with backoff until it succeeds', async () => {
    const clients = new KubeClients(kc());
    const real = configMapLister(clients, ns);
    let attempts = 0;
    const lw: ListerWatcher<V1ConfigMap> = {
      ...real,
      list: async (opts) => {
        attempts += 1;
        if (attempts <= 2) throw Object.assign(new Error('injected 500'), { code: 500 });
        return real.list(opts);
      },
    };
    const informer = new Informer(kc(), lw, { name: 'cm-retry', logger: silentLogger(), backoff: { initialMs: 50, maxMs: 200 } });
    informer.start();
    expect(informer.hasSynced).toBe(false);
    await informer.waitForSync();
    expect(attempts).toBe(3);
    expect(informer.store.get(`${ns}/ghost`)).toBeDefined();
    informer.stop();
  });
  it('resync lists again (a cache that missed an object gets it) and watches on from there', async () => {
    const clients = new KubeClients(kc());
    const real = configMapLister(clients, ns);
    await core().createNamespacedConfigMap({ namespace: ns, body: cm('missed') });
    // The first list leaves out an object that exists, as a cache behind the API server would be:
    // no watch event will bring it, since it is older than the list's resourceVersion.
    const { lw, lists } = firstListTampered(real, (page) => ({
      ...page,
      items: page.items.filter((c) => c.metadata?.name !== 'missed'),
    }));
    const informer = new Informer(kc(), lw, { name: 'cm-resync', logger: silentLogger() });
    const adds: string[] = [];
    informer.on((type, obj) => {
      if (type === 'add') adds.push(obj.metadata?.name ?? '');
    });
    informer.start();
    await informer.waitForSync();
    expect(informer.store.get(`${ns}/missed`)).toBeUndefined();
    await informer.resync();
    expect(lists()).toBe(2);
    expect(informer.store.get(`${ns}/missed`)).toBeDefined();
    expect(adds).toContain('missed');
    // It watches on from the new list: live events flow.
    await core().createNamespacedConfigMap({ namespace: ns, body: cm('after-resync') });
    await eventually(async () => adds.includes('after-resync'), { what: 'event after resync' });
    informer.stop();
  });

  it('keeps only what `keep` selects: an object leaving it is deleted with its new state, one entering it is added', async () => {
    const clients = new KubeClients(kc());
    const kept = (c: V1ConfigMap) => c.data?.phase !== 'done';
    for (const [name, phase] of [
      ['k-active', 'running'],
      ['k-done', 'done'],
    ] as const)
      await core().createNamespacedConfigMap({ namespace: ns, body: cm(name, { phase }) });
    const informer = new Informer(kc(), configMapLister(clients, ns), { name: 'cm-keep', logger: silentLogger(), keep: kept });
    const events: string[] = [];
    informer.on((type, obj, old) => {
      if (obj.metadata?.name?.startsWith('k-') === true)
        events.push(`${type} ${obj.metadata.name} ${obj.data?.phase ?? ''}<${old?.data?.phase ?? ''}`);
    });
    informer.start();
    await informer.waitForSync();
    expect(informer.store.get(`${ns}/k-done`)).toBeUndefined();
    expect(informer.store.get(`${ns}/k-active`)).toBeDefined();
    await core().replaceNamespacedConfigMap({ name: 'k-active', namespace: ns, body: cm('k-active', { phase: 'done' }) });
    await core().deleteNamespacedConfigMap({ name: 'k-active', namespace: ns }); // no longer held: no event
    await core().replaceNamespacedConfigMap({ name: 'k-done', namespace: ns, body: cm('k-done', { phase: 'again' }) });
    await eventually(async () => events.some((e) => e.startsWith('add k-done')), { what: 'add of k-done' });
    expect(events).toEqual(['add k-active running<', 'delete k-active done<running', 'add k-done again<']);
    expect(informer.store.get(`${ns}/k-active`)).toBeUndefined();
    informer.stop();
  });
});
