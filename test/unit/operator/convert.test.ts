import { describe, expect, it } from 'vitest';
import { jobSpec, nodeInfo, placementConstraints, podSpecRequests } from '../../../src/operator/scheduling/convert.ts';
import { canonicalAmount, parseQuantity } from '../../../src/api/v1/quantity.ts';

describe('Kubernetes quantities', () => {
  it.each([
    ['500m', 0.5],
    ['1', 1],
    ['1.5', 1.5],
    ['2k', 2000],
    ['1Ki', 1024],
    ['32Gi', 32 * 2 ** 30],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['.5', 0.5],
    ['100M', 1e8],
  ])('parses %s', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it('rejects what is not a quantity', () => {
    expect(parseQuantity('1.2.3')).toBeUndefined();
    expect(parseQuantity('ten')).toBeUndefined();
    expect(parseQuantity('5Qi')).toBeUndefined();
    expect(parseQuantity('1e400')).toBeUndefined();
    expect(parseQuantity('1Ei')).toBe(2 ** 60);
  });

  it('converts to canonical units, rounding up', () => {
    expect(canonicalAmount('cpu', '250m')).toBe(250);
    expect(canonicalAmount('cpu', '1.0001')).toBe(1001);
    expect(canonicalAmount('memory', '1.5Ki')).toBe(1536);
    expect(canonicalAmount('nvidia.com/gpu', '2')).toBe(2);
    expect(canonicalAmount('cpu', '-1')).toBeUndefined();
  });
});

describe('conversion to the scheduling core model', () => {
  it('reads allocatable, labels, taints, schedulability and readiness of a node', () => {
    const n = nodeInfo({
      metadata: { name: 'n1', labels: { zone: 'a' } },
      spec: { unschedulable: true, taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '10', memory: '32Gi', 'nvidia.com/gpu': '4' }, conditions: [{ type: 'Ready', status: 'False' }] },
    });
    expect(n).toEqual({
      name: 'n1',
      allocatable: { cpu: 10_000, memory: 32 * 2 ** 30, 'nvidia.com/gpu': 4 },
      labels: { zone: 'a' },
      taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }],
      unschedulable: true,
      ready: false,
    });
  });

  it('computes pod requests like kube-scheduler: containers summed, init containers maxed, sidecars added, overhead added', () => {
    const r = podSpecRequests({
      containers: [
        { name: 'tensorflow', resources: { requests: { cpu: '1', memory: '1Gi' } } },
        { name: 'sidecar', resources: { limits: { cpu: '500m', memory: '256Mi' } } },
      ],
      initContainers: [
        { name: 'fetch', resources: { requests: { cpu: '4', memory: '128Mi' } } },
        { name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
      ],
      overhead: { cpu: '50m' },
    });
    // containers 1.5 cpu + sidecar 0.1 = 1.6 < init 4 → 4 cpu, + overhead 0.05
    expect(r.cpu).toBe(4050);
    expect(r.memory).toBe(2 ** 30 + 256 * 2 ** 20 + 64 * 2 ** 20);
  });

  it('gives containers without requests the configured defaults', () => {
    const r = podSpecRequests(
      { containers: [{ name: 'tensorflow' }, { name: 'b', resources: { requests: { cpu: '2' } } }] },
      { cpu: 100, memory: 1000 },
    );
    expect(r).toEqual({ cpu: 2100, memory: 2000 });
  });

  it('keeps nodeSelector, required node affinity and tolerations', () => {
    const c = placementConstraints({
      containers: [],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, { operator: 'Exists' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
          },
        },
      },
    });
    expect(c).toEqual({
      nodeSelector: { disk: 'ssd' },
      requiredNodeAffinity: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, { operator: 'Exists' }],
    });
  });

  it('turns replica specs into fixed groups and an elastic worker group', () => {
    const tmpl = (cpu: string) => ({ spec: { containers: [{ name: 'tensorflow', resources: { requests: { cpu, memory: '1Gi' } } }] } });
    const spec = jobSpec({
      key: 'ns/j',
      priority: 1000,
      submittedAt: 5,
      groups: [
        { type: 'PS', replicas: 1, template: tmpl('2') },
        { type: 'Worker', replicas: 4, template: tmpl('1') },
        { type: 'Evaluator', replicas: 0, template: tmpl('1') },
      ],
      workerBounds: { min: 1, max: 4 },
      defaults: { cpu: 100, memory: 1 },
    });
    expect(spec.fixed).toEqual([{ type: 'PS', count: 1, requests: { cpu: 2000, memory: 2 ** 30 }, constraints: {} }]);
    expect(spec.workers).toMatchObject({ type: 'Worker', min: 1, max: 4, requests: { cpu: 1000 } });
    expect(
      jobSpec({
        key: 'ns/k',
        priority: 0,
        submittedAt: 0,
        groups: [{ type: 'Worker', replicas: 3, template: tmpl('1') }],
        defaults: { cpu: 1, memory: 1 },
      }).workers,
    ).toMatchObject({ min: 3, max: 3 });
  });
});
