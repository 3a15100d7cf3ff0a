// KubeClients against a real kube-apiserver (TLS, client certificates): every request reuses one
// connection pool. client-node's KubeConfig alone opens a new TCP + TLS connection per request.
import diagnosticsChannel from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeClients } from '../../../src/runtime/kube-client.ts';
import { adminKubeConfig } from '../../support/kube.ts';

describe('KubeClients connections', () => {
  let connects = 0;
  const onConnect = () => {
    connects++;
  };
  afterEach(() => {
    diagnosticsChannel.unsubscribe('undici:client:connected', onConnect);
  });

  it('serves sequential and concurrent requests over a handful of connections', async () => {
    const clients = new KubeClients(adminKubeConfig(), { rateLimit: { qps: 0, burst: 1 } });
    const core = clients.api(CoreV1Api);
    await core.listNamespace({ limit: 1 });
    diagnosticsChannel.subscribe('undici:client:connected', onConnect);
    connects = 0;
    for (let i = 0; i < 20; i++) await core.listNamespace({ limit: 1 });
    for (let i = 0; i < 10; i++) await clients.request('GET', '/api/v1/namespaces?limit=1');
    expect(connects).toBe(0);
    // Concurrent requests open at most one connection each, and only once.
    await Promise.all(Array.from({ length: 8 }, () => core.listNamespace({ limit: 1 })));
    const afterBurst = connects;
    expect(afterBurst).toBeLessThanOrEqual(8);
    await Promise.all(Array.from({ length: 8 }, () => core.listNamespace({ limit: 1 })));
    expect(connects).toBe(afterBurst);
    // The channel really reports connects: a second client builds its own pool.
    await new KubeClients(adminKubeConfig()).api(CoreV1Api).listNamespace({ limit: 1 });
    expect(connects).toBe(afterBurst + 1);
  });
});
