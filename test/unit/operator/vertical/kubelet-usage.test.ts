// FlowCon's used CPU term as the operator reads it: the kubelet's summary API through the API server's
// node proxy, against a small fake of the one client call it makes.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeletCpuUsage, usageFromSummary } from '../../../../src/operator/vertical/kube.ts';
import { Writable } from 'node:stream';
import { createLogger } from '../../../../src/runtime/logger.ts';

const summary = {
  node: { nodeName: 'n1' },
  pods: [
    {
      podRef: { name: 'a-worker-0', namespace: 'ns' },
      containers: [
        { name: 'tensorflow', cpu: { usageCoreNanoSeconds: 2_500_000_000, usageNanoCores: 1 } },
        { name: 'sidecar', cpu: {} },
      ],
    },
    { podRef: { name: 'no-namespace' }, containers: [{ name: 'c', cpu: { usageCoreNanoSeconds: 1 } }] },
  ],
};

describe("the kubelet's CPU usage (--flowcon-cpu used)", () => {
  it('reads each container counter as millicore-seconds, skipping what it cannot name or count', () => {
    expect(usageFromSummary(summary)).toEqual(new Map([['ns/a-worker-0/tensorflow', 2_500]]));
    expect(usageFromSummary({})).toEqual(new Map());
  });

  it('asks each node through the node proxy; a node that refuses is left out and warned about once', async () => {
    const asked: string[] = [];
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ destination, level: 'warn' });
    const clients = {
      request: <T>(_method: string, path: string): Promise<T> => {
        asked.push(path);
        if (path.includes('/n2/')) return Promise.reject(new ApiException(403, 'forbidden', '{}', {}));
        return Promise.resolve(summary as T);
      },
    };
    const reader = new KubeletCpuUsage(clients, log);
    expect(await reader.used(['n1', 'n2'])).toEqual(new Map([['ns/a-worker-0/tensorflow', 2_500]]));
    await reader.used(['n2']);
    expect(asked).toEqual([
      '/api/v1/nodes/n1/proxy/stats/summary?only_cpu_and_memory=true',
      '/api/v1/nodes/n2/proxy/stats/summary?only_cpu_and_memory=true',
      '/api/v1/nodes/n2/proxy/stats/summary?only_cpu_and_memory=true',
    ]);
    expect(lines).toHaveLength(1);
    const warning = JSON.parse(lines[0]!) as { node?: string; code?: number; msg?: string };
    expect([warning.node, warning.code]).toEqual(['n2', 403]);
    expect(warning.msg).toMatch(/^Cannot read CPU usage/);
  });
});
