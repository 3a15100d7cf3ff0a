import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterCapacity, clusterNodes } from '../../../../lab/workloads/model.ts';
import { listScenarioNames, loadScenario, SCENARIO_DIR, ScenarioError } from '../../../../lab/workloads/scenario.ts';

const dir = mkdtempSync(join(tmpdir(), 'scenario-test-'));
const BASE = join(SCENARIO_DIR, 'base/kod2-paper.yaml');

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(file: string): string {
  try {
    loadScenario(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
  throw new Error(`${file} loaded without error`);
}

describe('scenario files', () => {
  it('ships every scenario of the benchmark, and each one validates', () => {
    const names = listScenarioNames();
    for (const b of [8, 16, 32, 64, 128]) expect(names).toContain(`kod2-paper-b${b}`);
    for (const n of [1, 2, 3, 4]) expect(names).toContain(`philly-${n}`);
    for (const name of names) expect(loadScenario(name).jobs.length).toBeGreaterThan(0);
  });

  it('builds a mixed cluster from extra node pools: names, shapes and total capacity', () => {
    const scenario = loadScenario('gpu-mixed');
    const nodes = clusterNodes(scenario.cluster);
    expect(nodes.map((n) => n.name)).toEqual(['node-0', 'node-1', 'cpu-0', 'cpu-1', 'cpu-2']);
    expect(nodes[0]!.allocatable['nvidia.com/gpu']).toBe(4);
    expect(nodes[2]!.allocatable['nvidia.com/gpu']).toBeUndefined();
    expect(clusterCapacity(scenario.cluster)['nvidia.com/gpu']).toBe(8);
    expect(clusterCapacity(scenario.cluster).cpu).toBe(5 * 32_000);
  });

  it("names an extra pool that reuses the main pool's prefix", () => {
    const file = write(
      'bad-pool.yaml',
      `extends: ${BASE}\nname: x\nbatchSize: 32\ncluster:\n  extraPools:\n    - { name: node, nodes: 1, allocatable: { cpu: "1" } }\n`,
    );
    expect(errorOf(file)).toContain('field "cluster.extraPools[0].name"');
  });

  it('accepts a path as well as a name', () => {
    expect(loadScenario(join(SCENARIO_DIR, 'kod2-paper-b16.yaml')).definition.name).toBe('kod2-paper-b16');
  });

  it('names the known scenarios when one is not found', () => {
    expect(errorOf('kod2-paper-b48')).toMatch(/not found.*known scenarios: .*kod2-paper-b8/s);
  });

  it('names a missing required field', () => {
    const file = write('no-batch.yaml', `extends: ${BASE}\nname: x\n`);
    expect(errorOf(file)).toContain('field "batchSize"');
  });

  it('names a wrongly typed field deep inside a list', () => {
    const file = write(
      'bad-rate.yaml',
      `extends: ${BASE}\nname: x\nbatchSize: 32\nmodels:\n  - name: m\n    epochs: 1\n    worker: { cpu: "1" }\n    ps: { cpu: "1" }\n` +
        `    workerImagesPerSecond: { 8: 1, 16: fast, 32: 1, 64: 1, 128: 1 }\n` +
        `    remotePenalty: { 8: 0, 16: 0, 32: 0, 64: 0, 128: 1.5 }\n` +
        `    psCapacityImagesPerSecond: { 8: 1, 16: 1, 32: 1, 64: 1 }\n`,
    );
    const message = errorOf(file);
    expect(message).toContain('field "models[0].workerImagesPerSecond.16"');
    expect(message).toContain('field "models[0].remotePenalty.128"');
    expect(message).toContain('field "models[0].psCapacityImagesPerSecond.128"');
  });

  it('names a bad quantity, a bad batch size, a bad range and an unknown key', () => {
    const file = write(
      'bad-misc.yaml',
      `extends: ${BASE}\nname: x\nbatchSize: 48\ncluster: { nodes: 0, allocatable: { cpu: "10 cores" } }\n` +
        `workers: { min: 5, max: 4 }\nbogus: 1\n`,
    );
    const message = errorOf(file);
    expect(message).toContain('field "batchSize"');
    expect(message).toContain('field "cluster.nodes"');
    expect(message).toContain('field "cluster.allocatable.cpu"');
    expect(message).toContain('field "workers.min"');
    expect(message).toMatch(/Unrecognized key.*bogus/);
  });

  it('names bad performance targets: fraction, kind, an inverted range, α', () => {
    const file = write(
      'bad-targets.yaml',
      `extends: ${BASE}\nname: x\nbatchSize: 32\n` + `targets: { fraction: 0, kind: speed, throughputFactor: [0.8, 0.3], tolerance: 1 }\n`,
    );
    const message = errorOf(file);
    expect(message).toContain('field "targets.fraction"');
    expect(message).toContain('field "targets.kind"');
    expect(message).toContain('field "targets.throughputFactor"');
    expect(message).toContain('field "targets.tolerance"');
  });

  it('names an unknown kind and a missing extends target', () => {
    expect(errorOf(write('kind.yaml', 'kind: slurm\nname: x\n'))).toContain('field "kind"');
    expect(errorOf(write('ext.yaml', 'extends: nowhere.yaml\nname: x\n'))).toContain('field "extends"');
  });

  it('names a Philly trace path that does not exist, relative to the file that wrote it', () => {
    const file = write('philly.yaml', `extends: ${join(SCENARIO_DIR, 'philly-1.yaml')}\nname: x\nworkload: missing.csv\n`);
    expect(errorOf(file)).toMatch(/field "workload": .*scenario-test-.*missing\.csv does not exist/);
  });
});
