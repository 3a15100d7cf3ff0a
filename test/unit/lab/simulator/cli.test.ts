import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../../lab/simulator/cli.ts';
import type { CliDependencies } from '../../../../lab/simulator/cli.ts';
import { SCENARIO_DIR } from '../../../../lab/workloads/scenario.ts';
import { toyFifoPass } from './toy-policy.ts';

const TOY: CliDependencies = { passFor: () => toyFifoPass, schedulerConfig: { policy: 'toy-fifo' } };
const dir = mkdtempSync(join(tmpdir(), 'simulate-cli-'));

let stdout: string[];
let stderr: string[];
beforeEach(() => {
  stdout = [];
  stderr = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void stdout.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderr.push(args.join(' ')));
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('simulate CLI arguments', () => {
  it('prints help with the defaults and exits 0', async () => {
    expect(await main(['--help'], TOY)).toBe(0);
    expect(stdout.join('\n')).toMatch(/--policy .*\(default: all\)/);
    expect(stdout.join('\n')).toMatch(/--seed N .*\(default: 1\)/);
  });

  it.each([
    [['--policy', 'ours'], /--scenario is required/],
    [['--scenario', 'kod2-paper-b32', '--policy', 'fifo'], /--policy must be one of/],
    [['--scenario', 'kod2-paper-b32', '--seed', '-3'], /--seed/],
    [['--scenario', 'kod2-paper-b32', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--scenario', 'kod2-paper-b99'], /not found/],
    [['--scenario', 'kod2-paper-b32', '--rate-jitter', '0.9'], /--rate-jitter must be a number in \[0, 0\.5\]/],
    [['--scenario', 'kod2-paper-b32', '--rate-jitter', 'x'], /--rate-jitter/],
    // The committed scenarios have no jitter: a seed alone would silently give the same run.
    [['--scenario', 'kod2-paper-b32', '--seed', '3'], /--seed changes nothing: kod2-paper-b32 has rateJitter 0/],
  ])('rejects %j with exit code 2', async (argv, message) => {
    expect(await main(argv, TOY)).toBe(2);
    expect(stderr.join('\n')).toMatch(message);
  });
});

describe('seeds', () => {
  it('give different runs with a rate jitter, the same run for the same seed', async () => {
    const run = async (seed: string) => {
      const file = join(dir, `seed-${seed}-${Math.random()}.json`);
      const argv = ['--scenario', 'kod2-paper-b64', '--policy', 'kod2', '--rate-jitter', '0.2', '--seed', seed, '--json', file, '--quiet'];
      expect(await main(argv, TOY)).toBe(0);
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { params: { rateJitter: number }; summary: { jct: { mean: number } } };
      expect(doc.params.rateJitter).toBe(0.2);
      return doc.summary.jct.mean;
    };
    const [a, b, a2] = [await run('1'), await run('2'), await run('1')];
    expect(a).not.toBe(b);
    expect(a2).toBe(a);
  });
});

describe('scheduler configuration', () => {
  it('rejects an invalid --scheduler-config naming the field, with exit code 2', async () => {
    const file = join(dir, 'bad-config.yaml');
    writeFileSync(file, 'improvements:\n  scalingKnee: 3\n');
    // No injected dependencies: the real core's schema validates the file.
    expect(await main(['--scenario', 'kod2-paper-b32', '--scheduler-config', file])).toBe(2);
    expect(stderr.join('\n')).toContain('field "improvements.scalingKnee"');
  });
});

describe('simulate CLI outputs', () => {
  it('writes one document for one policy and an array for all, with the documented shape', async () => {
    const one = join(dir, 'one.json');
    expect(await main(['--scenario', 'kod2-paper-b64', '--policy', 'kod2', '--json', one, '--quiet'], TOY)).toBe(0);
    const doc = JSON.parse(readFileSync(one, 'utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({ schema: 'tfjob-operator.kubeflow.org/simulation/v1', scenario: 'kod2-paper-b64', policy: 'kod2' });
    expect(Object.keys((doc.jobs as Record<string, unknown>[])[0]!)).toEqual(
      expect.arrayContaining([
        'name',
        'submitted',
        'started',
        'finished',
        'jct',
        'waited',
        'workersMin',
        'workersMax',
        'preemptedWorkers',
        'scaleOuts',
        'suspensions',
        'timeToAccuracy',
      ]),
    );
    // tf-operator ran as the reference even though only kod2 was asked for.
    expect((doc.summary as Record<string, unknown>).vsTfOperator).not.toBeNull();
    expect(stdout.join('\n')).toMatch(/figure\s+tf-operator\s+kod2/);

    const all = join(dir, 'all.json');
    expect(await main(['--scenario', 'kod2-paper-b64', '--json', all, '--quiet'], TOY)).toBe(0);
    const docs = JSON.parse(readFileSync(all, 'utf8')) as { policy: string }[];
    expect(docs.map((d) => d.policy)).toEqual(['tf-operator', 'gang-fifo', 'kod2', 'ours', 'tiresias', 'srtf-oracle', 'srsf-oracle']);
  });

  it('writes the three kinds of chart', async () => {
    const svgDir = join(dir, 'svg');
    expect(await main(['--scenario', 'kod2-paper-b64', '--policy', 'ours', '--svg', svgDir, '--quiet'], TOY)).toBe(0);
    expect(readdirSync(svgDir).sort()).toEqual([
      'kod2-paper-b64-jct-cdf.svg',
      'kod2-paper-b64-queue.svg',
      'kod2-paper-b64-utilisation-cpu.svg',
      'kod2-paper-b64-utilisation-memory.svg',
    ]);
  });

  it('is deterministic: the same seed gives the same JSON, another seed another one', async () => {
    // A jittered variant, so that the seed matters at all (the shipped scenarios use no jitter).
    const scenario = join(dir, 'jittered.yaml');
    writeFileSync(scenario, `extends: ${join(SCENARIO_DIR, 'kod2-paper-b16.yaml')}\nname: jittered\nrateJitter: 0.2\n`);
    const run = async (seed: string, out: string): Promise<string> => {
      expect(await main(['--scenario', scenario, '--seed', seed, '--json', join(dir, out), '--quiet'], TOY)).toBe(0);
      return readFileSync(join(dir, out), 'utf8');
    };
    const first = await run('7', 'a.json');
    expect(await run('7', 'b.json')).toBe(first);
    expect(await run('8', 'c.json')).not.toBe(first);
  });
});
