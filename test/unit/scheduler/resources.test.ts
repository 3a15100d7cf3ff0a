import { describe, expect, it } from 'vitest';
import {
  addResources,
  dominantShare,
  fitsIn,
  formatBytes,
  formatCpu,
  formatResources,
  isZeroResources,
  resourcesEqual,
  scaleResources,
  shortfall,
  subtractResources,
  sumResources,
} from '../../../src/scheduler/model/resources.ts';
import { fitsAt, ResourceIndex, VectorTable } from '../../../src/scheduler/model/resource-vector.ts';
import { Gi, Mi } from './helpers/builders.ts';

describe('resource arithmetic over maps', () => {
  it('adds and subtracts over the union of keys, a missing key meaning zero', () => {
    expect(addResources({ cpu: 1000, memory: 2 * Gi }, { cpu: 500, 'nvidia.com/gpu': 1 })).toEqual({
      cpu: 1500,
      memory: 2 * Gi,
      'nvidia.com/gpu': 1,
    });
    expect(subtractResources({ cpu: 1000, memory: 2 * Gi }, { cpu: 1500 })).toEqual({ cpu: -500, memory: 2 * Gi });
  });

  it('drops zero entries so equal amounts compare equal', () => {
    expect(subtractResources({ cpu: 1000 }, { cpu: 1000 })).toEqual({});
    expect(resourcesEqual({ cpu: 0, memory: 5 }, { memory: 5 })).toBe(true);
    expect(resourcesEqual({ cpu: 1 }, { memory: 1 })).toBe(false);
    expect(isZeroResources({ cpu: 0 })).toBe(true);
    expect(isZeroResources({ cpu: 1 })).toBe(false);
  });

  it('scales and sums', () => {
    expect(scaleResources({ cpu: 2000, memory: 4 * Gi }, 3)).toEqual({ cpu: 6000, memory: 12 * Gi });
    expect(sumResources([{ cpu: 1 }, { cpu: 2, memory: 3 }, {}])).toEqual({ cpu: 3, memory: 3 });
  });

  it('fits only checks what the request asks for', () => {
    expect(fitsIn({ cpu: 1000 }, { cpu: 1000, memory: -5 })).toBe(true);
    expect(fitsIn({ cpu: 1001 }, { cpu: 1000 })).toBe(false);
    expect(fitsIn({ 'nvidia.com/gpu': 1 }, { cpu: 64000 })).toBe(false);
    expect(fitsIn({ cpu: 0, 'nvidia.com/gpu': 0 }, {})).toBe(true);
    expect(shortfall({ cpu: 3000, memory: Gi }, { cpu: 1000, memory: 2 * Gi })).toEqual({ cpu: 2000 });
  });

  it('dominant share is the largest fraction of any one resource', () => {
    const total = { cpu: 64000, memory: 256 * Gi, 'nvidia.com/gpu': 4 };
    expect(dominantShare({ cpu: 12000, memory: 48 * Gi, 'nvidia.com/gpu': 1 }, total)).toBe(0.25);
    expect(dominantShare({ cpu: 32000 }, total)).toBe(0.5);
    expect(dominantShare({ 'example.com/fpga': 1 }, total)).toBe(Number.POSITIVE_INFINITY);
    expect(dominantShare({}, total)).toBe(0);
  });

  it('formats quantities for people', () => {
    expect(formatCpu(2000)).toBe('2 cpu');
    expect(formatCpu(500)).toBe('500m cpu');
    expect(formatCpu(1500)).toBe('1.5 cpu');
    expect(formatBytes(4 * Gi)).toBe('4Gi');
    expect(formatBytes(512 * Mi)).toBe('512Mi');
    expect(formatBytes(1.5 * Gi)).toBe('1.5Gi');
    expect(formatResources({ memory: 8 * Gi, cpu: 1000, 'nvidia.com/gpu': 1, pods: 3 })).toBe('1 cpu / 8Gi / 1 nvidia.com/gpu');
    expect(formatResources({ cpu: 1000, memory: 8 * Gi }, ['cpu'])).toBe('1 cpu');
    expect(formatResources({})).toBe('nothing');
    // Names asked for twice are shown once; pods only when asked for; the rest by name.
    expect(
      formatResources({ z: 2, 'a.io/x': 1, memory: Gi, cpu: 250, pods: 1 }, ['z', 'memory', 'pods', 'cpu', 'memory', 'a.io/x', 'z']),
    ).toBe('250m cpu / 1Gi / 1 a.io/x / 1 pods / 2 z');
    expect(formatResources({ z: 2, 'a.io/x': 1, pods: 4 })).toBe('1 a.io/x / 2 z');
  });
});

describe('dense resource vectors', () => {
  it('counts one pod per replica when nodes declare a pod capacity, and unlimited pods when a node does not', () => {
    const dims = new ResourceIndex(['memory', 'cpu', 'pods']);
    expect(dims.names).toEqual(['cpu', 'memory', 'pods']);
    expect([...dims.podRequests({ cpu: 500 })]).toEqual([500, 0, 1]);
    expect([...dims.podRequests({ cpu: 500, pods: 0 })]).toEqual([500, 0, 0]);
    expect([...dims.nodeAllocatable({ cpu: 1000, memory: 10 })]).toEqual([1000, 10, Number.POSITIVE_INFINITY]);
    expect(dims.toResources(dims.nodeAllocatable({ cpu: 1000, memory: 10, pods: 110 }), 0, true)).toEqual({
      cpu: 1000,
      memory: 10,
      pods: 110,
    });
  });

  it('fitsAt ignores zero needs and compares positive ones', () => {
    const have = Float64Array.from([0, 5, -1, 3]);
    expect(fitsAt(Float64Array.from([0, 0]), have, 2)).toBe(true);
    expect(fitsAt(Float64Array.from([1, 0]), have, 2)).toBe(false);
    expect(fitsAt(Float64Array.from([0, 3]), have, 2)).toBe(true);
    expect(fitsAt(Float64Array.from([0, 5]), have, 0)).toBe(true);
    expect(fitsAt(Float64Array.from([0, 6]), have, 0)).toBe(false);
  });
});

describe("a pass's table of request vectors", () => {
  it('gives equal requests one id and one shared vector, however the record is written', () => {
    const dims = new ResourceIndex(['cpu', 'memory', 'pods', 'nvidia.com/gpu']);
    const table = new VectorTable(dims);
    const a = table.idOf({ cpu: 2000, memory: 4 * Gi });
    const b = table.idOf({ memory: 4 * Gi, cpu: 2000, 'nvidia.com/gpu': 0 });
    const unknownName = table.idOf({ cpu: 2000, memory: 4 * Gi, 'example.com/other': 3 });
    expect(b).toBe(a);
    expect(unknownName).toBe(a);
    expect(table.vector(a)).toBe(table.vector(b));
    expect([...table.vector(a)]).toEqual([...dims.podRequests({ cpu: 2000, memory: 4 * Gi })]);
    // Any amount apart, or an explicit pod count, is another shape.
    expect(table.idOf({ cpu: 2001, memory: 4 * Gi })).not.toBe(a);
    expect(table.idOf({ cpu: 2000, memory: 4 * Gi, pods: 2 })).not.toBe(a);
    expect(table.idOf({ cpu: 2000, memory: 4 * Gi + 2 ** 32 })).not.toBe(a);
    expect(table.idOf({ cpu: -0, memory: 0 })).toBe(table.idOf({}));
    expect(table.idOf({ cpu: Number.NaN })).toBe(table.idOf({ cpu: Number.NaN }));
    expect(table.idOf({ cpu: Number.POSITIVE_INFINITY })).not.toBe(table.idOf({ cpu: Number.NaN }));
    expect(table.shapeKey(a, 3)).toBe(`${a}@3`);
    expect(table.shapeKey(a, 3)).toBe(table.shapeKey(b, 3));
    expect(table.shapeKey(a, 4)).not.toBe(table.shapeKey(a, 3));
  });
});
