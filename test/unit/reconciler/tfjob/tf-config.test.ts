import { describe, expect, it } from 'vitest';
import { goJsonString } from '../../../../src/reconciler/tfjob/json.ts';
import { tfConfigFor, buildJobView } from '../../../../src/reconciler/tfjob/job-view.ts';
import { elasticTfConfig, isDistributed, normalTfConfig } from '../../../../src/reconciler/tfjob/tf-config.ts';
import { MAX_ELASTIC_WORKERS } from '../../../../src/api/v1/elastic.ts';
import { applyDefaults } from '../../../../src/api/v1/defaults.ts';
import { newTFJob } from './builders.ts';
import { defaulted, parsed, viewOf } from './job-helpers.ts';

describe('TF_CONFIG, normal form (compat §5.1 item 11, Test ClusterSpec)', () => {
  it('1 worker: not distributed, no TF_CONFIG', () => {
    expect(tfConfigFor(viewOf(newTFJob(1, 0, { namespace: 'ns0' })), 'Worker', 0)).toBeUndefined();
  });

  it('1 worker with a custom cluster domain: still no TF_CONFIG', () => {
    expect(tfConfigFor(viewOf(newTFJob(1, 0, { namespace: 'ns1' }), { clusterDomain: 'tf.training.com' }), 'Worker', 0)).toBeUndefined();
  });

  it('1 worker + 1 PS in ns2 with domain tf.training.org', () => {
    const view = viewOf(newTFJob(1, 1, { namespace: 'ns2' }), { clusterDomain: 'tf.training.org' });
    expect(tfConfigFor(view, 'Worker', 0)).toBe(
      '{"cluster":{"ps":["test-tfjob-ps-0.ns2.svc.tf.training.org:2222"],"worker":["test-tfjob-worker-0.ns2.svc.tf.training.org:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
    );
  });

  it('1 worker + 1 PS + 1 evaluator in ns3 with domain tf.training.io', () => {
    const view = viewOf(newTFJob(1, 1, { namespace: 'ns3', evaluator: 1 }), { clusterDomain: 'tf.training.io' });
    expect(tfConfigFor(view, 'Worker', 0)).toBe(
      '{"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222"],"ps":["test-tfjob-ps-0.ns3.svc.tf.training.io:2222"],"worker":["test-tfjob-worker-0.ns3.svc.tf.training.io:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
    );
  });

  it('the same without a cluster domain ends in .ns3.svc:2222', () => {
    const view = viewOf(newTFJob(1, 1, { namespace: 'ns3', evaluator: 1 }));
    expect(tfConfigFor(view, 'Worker', 0)).toBe(
      '{"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc:2222"],"ps":["test-tfjob-ps-0.ns3.svc:2222"],"worker":["test-tfjob-worker-0.ns3.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
    );
  });

  it('all types under sorted lowercase keys, task type lowercase (compat §2.5)', () => {
    const view = viewOf(newTFJob(2, 2, { name: 'j', namespace: 'ns', chief: 1, evaluator: 1 }));
    expect(normalTfConfig(view.layout, 'Worker', 1)).toBe(
      '{"cluster":{"chief":["j-chief-0.ns.svc:2222"],"evaluator":["j-evaluator-0.ns.svc:2222"],"ps":["j-ps-0.ns.svc:2222","j-ps-1.ns.svc:2222"],"worker":["j-worker-0.ns.svc:2222","j-worker-1.ns.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}',
    );
    expect(normalTfConfig(view.layout, 'Chief', 0)).toContain('"task":{"type":"chief","index":0}');
  });

  it('Appendix A: job dist in ml, PS=1, Worker=2', () => {
    const view = viewOf(newTFJob(2, 1, { name: 'dist', namespace: 'ml' }));
    expect(tfConfigFor(view, 'Worker', 0)).toBe(
      '{"cluster":{"ps":["dist-ps-0.ml.svc:2222"],"worker":["dist-worker-0.ml.svc:2222","dist-worker-1.ml.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
    );
  });

  it('uses each type’s own tfjob-port and lists zero-replica types as empty', () => {
    const raw = newTFJob(1, 1, { name: 'j', namespace: 'ns', evaluator: 1 });
    const specs = (
      raw.spec as { tfReplicaSpecs: Record<string, { replicas: number; template: { spec: { containers: { ports: unknown[] }[] } } }> }
    ).tfReplicaSpecs;
    specs.PS!.template.spec.containers[0]!.ports = [{ name: 'tfjob-port', containerPort: 3333 }];
    specs.Evaluator!.replicas = 0;
    expect(tfConfigFor(viewOf(raw), 'Worker', 0)).toBe(
      '{"cluster":{"evaluator":[],"ps":["j-ps-0.ns.svc:3333"],"worker":["j-worker-0.ns.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}',
    );
  });
});

describe('TF_CONFIG, sparse form (enableDynamicWorker)', () => {
  const dynamic = (worker: number, ps: number, extra: { chief?: number } = {}) =>
    viewOf(newTFJob(worker, ps, { name: 'j', namespace: 'ns', spec: { enableDynamicWorker: true }, ...extra }));

  it('worker i sees itself and every PS, no environment key', () => {
    expect(tfConfigFor(dynamic(2, 2), 'Worker', 1)).toBe(
      '{"cluster":{"worker":{"1":"j-worker-1.ns.svc:2222"},"ps":["j-ps-0.ns.svc:2222","j-ps-1.ns.svc:2222"]},"task":{"type":"worker","index":1}}',
    );
  });

  it('without a PS spec the ps list is null (Go nil slice)', () => {
    expect(tfConfigFor(dynamic(2, 0), 'Worker', 0)).toBe(
      '{"cluster":{"worker":{"0":"j-worker-0.ns.svc:2222"},"ps":null},"task":{"type":"worker","index":0}}',
    );
  });

  it('TestConvertClusterSpecToSparseClusterSpec: PS i sees only itself', () => {
    expect(tfConfigFor(dynamic(2, 2), 'PS', 1)).toBe(
      '{"cluster":{"worker":{},"ps":["j-ps-1.ns.svc:2222"]},"task":{"type":"ps","index":1}}',
    );
  });

  it('chief gets an empty cluster', () => {
    expect(tfConfigFor(dynamic(2, 1, { chief: 1 }), 'Chief', 0)).toBe(
      '{"cluster":{"worker":{},"ps":[]},"task":{"type":"chief","index":0}}',
    );
  });

  it('an elastic job that can grow is distributed even while it has one worker', () => {
    const view = viewOf(newTFJob(1, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } }), { workers: 1 });
    expect(view.replicas.Worker).toBe(1);
    expect(view.distributed).toBe(true);
  });
});

describe('TF_CONFIG, elastic form (docs/elastic-contract.md)', () => {
  const elastic = (worker: number, ps: number, extra: { chief?: number; evaluator?: number; spec?: Record<string, unknown> } = {}) =>
    newTFJob(worker, ps, {
      name: 'j',
      namespace: 'ns',
      ...extra,
      spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 }, ...(extra.spec ?? {}) },
    });
  const slots = '"worker":["j-worker-0.ns.svc:2222","j-worker-1.ns.svc:2222","j-worker-2.ns.svc:2222","j-worker-3.ns.svc:2222"]';

  it('every type gets the full cluster with every worker slot up to maxReplicas, whatever the current size', () => {
    const view = viewOf(elastic(2, 2, { chief: 1, evaluator: 1 }), { workers: 1 });
    expect(view.replicas.Worker).toBe(1);
    expect(view.sparse).toBe(false);
    const cluster =
      '{"chief":["j-chief-0.ns.svc:2222"],"evaluator":["j-evaluator-0.ns.svc:2222"],"ps":["j-ps-0.ns.svc:2222","j-ps-1.ns.svc:2222"],' +
      slots +
      '}';
    expect(tfConfigFor(view, 'Worker', 3)).toBe(`{"cluster":${cluster},"task":{"type":"worker","index":3},"environment":"cloud"}`);
    expect(tfConfigFor(view, 'PS', 1)).toBe(`{"cluster":${cluster},"task":{"type":"ps","index":1},"environment":"cloud"}`);
    expect(tfConfigFor(view, 'Chief', 0)).toBe(`{"cluster":${cluster},"task":{"type":"chief","index":0},"environment":"cloud"}`);
    expect(tfConfigFor(view, 'Evaluator', 0)).toBe(`{"cluster":${cluster},"task":{"type":"evaluator","index":0},"environment":"cloud"}`);
  });

  it('scaling changes no replica’s TF_CONFIG', () => {
    const at = (workers: number) => tfConfigFor(viewOf(elastic(2, 1), { workers }), 'PS', 0);
    expect(at(1)).toBe(at(4));
    expect(at(1)).toContain(slots);
  });

  it('elastic wins over enableDynamicWorker; worker failures are tolerated either way', () => {
    const view = viewOf(elastic(2, 1, { spec: { enableDynamicWorker: true } }));
    expect(view.sparse).toBe(false);
    expect(view.tolerateWorkerFailures).toBe(true);
    expect(tfConfigFor(view, 'Worker', 0)).toBe(
      `{"cluster":{"ps":["j-ps-0.ns.svc:2222"],${slots}},"task":{"type":"worker","index":0},"environment":"cloud"}`,
    );
    const dynamic = viewOf(newTFJob(2, 1, { name: 'j', namespace: 'ns', spec: { enableDynamicWorker: true } }));
    expect(dynamic.sparse).toBe(true);
    expect(dynamic.tolerateWorkerFailures).toBe(true);
  });

  it('the annotation form and the operator default bounds get the same slots', () => {
    const annotated = viewOf(
      newTFJob(2, 1, { name: 'j', namespace: 'ns', annotations: { 'tfjob-operator.kubeflow.org/max-workers': '4' } }),
    );
    expect(tfConfigFor(annotated, 'PS', 0)).toContain(slots);
    const raw = parsed(newTFJob(2, 1, { name: 'j', namespace: 'ns' }));
    const byDefault = buildJobView(raw, applyDefaults(raw), { defaultElastic: { min: 1, max: 4 } });
    expect(tfConfigFor(byDefault, 'PS', 0)).toContain(slots);
  });

  it('a huge maxReplicas or Worker.replicas lists at most MAX_ELASTIC_WORKERS slots', () => {
    const raw = newTFJob(2 ** 31 - 1, 1, { name: 'j', namespace: 'ns', spec: { elasticPolicy: { minReplicas: 1 } } });
    const view = viewOf(raw, { workers: 1 });
    expect(view.elastic).toEqual({ min: 1, max: MAX_ELASTIC_WORKERS });
    const config = JSON.parse(tfConfigFor(view, 'PS', 0)!) as { cluster: { worker: string[] } };
    expect(config.cluster.worker).toHaveLength(MAX_ELASTIC_WORKERS);
    expect(config.cluster.worker.at(-1)).toBe(`j-worker-${MAX_ELASTIC_WORKERS - 1}.ns.svc:2222`);
  });

  it('stays under Linux’s 128 KiB limit for one environment variable with the longest names', () => {
    const name = 'j'.repeat(63 - '-worker-511'.length);
    const namespace = 'n'.repeat(63);
    const raw = newTFJob(2, 1, { name, namespace, spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 100000 } } });
    const view = viewOf(raw, { clusterDomain: 'cluster.local' });
    const config = tfConfigFor(view, 'Worker', 0)!;
    expect(Buffer.byteLength(`TF_CONFIG=${config}`) + 1).toBeLessThan(128 * 1024);
  });

  it('elasticTfConfig is the normal form with Worker.replicas replaced by the slot count', () => {
    const view = viewOf(newTFJob(4, 1, { name: 'j', namespace: 'ns' }));
    expect(elasticTfConfig(view.layout, 'Worker', 1, 4)).toBe(normalTfConfig(view.layout, 'Worker', 1));
  });
});

describe('isDistributed (Test IsDistributed)', () => {
  const specs = (w: number, ps: number, chief?: number) =>
    defaulted(newTFJob(w, ps, chief === undefined ? {} : { chief })).spec.tfReplicaSpecs;
  it('1 worker → false', () => {
    expect(isDistributed(specs(1, 0))).toBe(false);
  });
  it('1 worker + 1 PS → true', () => {
    expect(isDistributed(specs(1, 1))).toBe(true);
  });
  it('1 PS → false', () => {
    expect(isDistributed(specs(0, 1))).toBe(false);
  });
  it('1 worker + chief → true', () => {
    expect(isDistributed(specs(1, 0, 1))).toBe(true);
  });
});

describe('Go JSON string escaping', () => {
  it('escapes HTML characters and line separators like encoding/json', () => {
    expect(goJsonString('a<b>&c\u2028')).toBe('"a\\u003cb\\u003e\\u0026c\\u2028"');
    expect(goJsonString('plain')).toBe('"plain"');
  });
});
