// The folders are the architecture: this checks what the import graph of src/ must look like, and
// that nothing in src/ (what the image ships) imports the lab (lab/) or any other folder.
// Type-only imports count: a cycle through types still ties two modules into one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Module specifiers of every import, export-from and dynamic import in a file. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [/\bfrom\s+'([^']+)'/g, /\bimport\s+'([^']+)'/g, /\bimport\(\s*'([^']+)'\s*\)/g];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

const files = sourceFiles(SRC);
const graph = new Map<string, { local: string[]; packages: string[] }>();
for (const file of files) {
  const specs = specifiers(readFileSync(file, 'utf8'));
  graph.set(path.relative(SRC, file), {
    local: specs.filter((s) => s.startsWith('.')).map((s) => path.relative(SRC, path.resolve(path.dirname(file), s))),
    packages: specs.filter((s) => !s.startsWith('.')),
  });
}

/** Strongly connected components with more than one module (or a self-import): the cycles. */
function cycles(g: ReadonlyMap<string, { local: readonly string[] }>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v)?.local ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v)?.local ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Imports that leave src/, as `file → target`. */
function importsFromOutside(g: ReadonlyMap<string, { local: readonly string[] }>): string[] {
  return [...g].flatMap(([file, { local }]) => local.filter((l) => l.startsWith('..')).map((l) => `${file} → ${l}`));
}

function importsOf(folder: string): { file: string; local: string[]; packages: string[] }[] {
  return [...graph].filter(([file]) => file.startsWith(`${folder}/`)).map(([file, deps]) => ({ file, ...deps }));
}

/** SpeCon (a migration rule) classifies growth with FlowCon and checks fit with the model's code, as kube-scheduler would. */
const SPECON_MODEL = ['scheduler/model/feasibility.ts', 'scheduler/model/resources.ts', 'scheduler/types.ts'];
const speconMayUse = (folder: string, target: string): boolean =>
  folder === 'scheduler/vertical/specon' && (target.startsWith('scheduler/vertical/flowcon/') || SPECON_MODEL.includes(target));

describe('the import graph of src/', () => {
  it('reads every module', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('operator/manager.ts')?.local).toContain('operator/scheduling/loop.ts');
  });

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const g = new Map([
      ['a.ts', { local: ['b.ts'] }],
      ['b.ts', { local: ['c.ts'] }],
      ['c.ts', { local: ['a.ts'] }],
      ['d.ts', { local: ['a.ts'] }],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('keeps the scheduling core free of Kubernetes and of the layers above it', () => {
    for (const { file, local, packages } of importsOf('scheduler')) {
      expect({ file, local: local.filter((l) => !l.startsWith('scheduler/')) }).toEqual({ file, local: [] });
      expect({ file, packages: packages.filter((p) => !p.startsWith('node:') && p !== 'zod') }).toEqual({ file, packages: [] });
    }
  });

  it('keeps progress signals free of Kubernetes and I/O: the simulator runs the same code', () => {
    const signals = importsOf('progress/signals');
    expect(signals.length).toBeGreaterThan(0);
    for (const { file, local, packages } of signals) {
      const outside = local.filter((l) => !l.startsWith('progress/signals/') && !l.startsWith('api/'));
      expect({ file, local: outside }).toEqual({ file, local: [] });
      expect({ file, packages }).toEqual({ file, packages: [] });
    }
  });

  it('keeps each scheduler plugin to the session and the model: no other plugin, policy or operator code', () => {
    const plugins = importsOf('scheduler/plugins').filter(({ file }) => file.split('/').length > 3);
    expect(plugins.length).toBeGreaterThan(0);
    for (const { file, local } of plugins) {
      const folder = file.split('/').slice(0, 3).join('/');
      const foreign = local.filter(
        (l) =>
          !l.startsWith(`${folder}/`) &&
          !l.startsWith('scheduler/session/') &&
          !l.startsWith('scheduler/model/') &&
          l !== 'scheduler/types.ts',
      );
      expect({ file, foreign }).toEqual({ file, foreign: [] });
    }
  });

  it('keeps each vertical rule to its folder and the shared limit arithmetic', () => {
    const rules = importsOf('scheduler/vertical').filter(({ file }) => file.split('/').length > 3);
    expect(rules.length).toBeGreaterThan(0);
    for (const { file, local } of rules) {
      const folder = file.split('/').slice(0, 3).join('/');
      const foreign = local.filter((l) => !l.startsWith(`${folder}/`) && l !== 'scheduler/vertical/limits.ts' && !speconMayUse(folder, l));
      expect({ file, foreign }).toEqual({ file, foreign: [] });
    }
  });

  it('lets SpeCon reuse only FlowCon and the feasibility and resource arithmetic of the model', () => {
    const specon = importsOf('scheduler/vertical/specon');
    expect(specon.length).toBeGreaterThan(0);
    for (const { file, local } of specon) {
      const foreign = local.filter((l) => !l.startsWith('scheduler/vertical/') && !SPECON_MODEL.includes(l));
      expect({ file, foreign }).toEqual({ file, foreign: [] });
    }
  });

  it('keeps the session and the model free of plugins and policies (plugins register, they are not called by name)', () => {
    for (const folder of ['scheduler/session', 'scheduler/model', 'scheduler/ranking', 'scheduler/queues']) {
      for (const { file, local } of importsOf(folder)) {
        const upward = local.filter((l) => l.startsWith('scheduler/plugins/') || l.startsWith('scheduler/policies/'));
        expect({ file, upward }).toEqual({ file, upward: [] });
      }
    }
  });

  it('keeps the pure layers, the generic runtime and the progress follower from importing the assembly', () => {
    for (const folder of ['api', 'reconciler', 'scheduler', 'progress', 'runtime']) {
      for (const { file, local } of importsOf(folder)) {
        const upward = local.filter((l) => l.startsWith('operator/') || l.startsWith('cli/'));
        expect({ file, upward }).toEqual({ file, upward: [] });
      }
    }
  });

  it('never imports from outside src/: the lab, hack/, bench/ and tests are not in the image', () => {
    expect(importsFromOutside(graph)).toEqual([]);
  });

  it('finds an import of the lab when there is one (the check itself)', () => {
    const local = specifiers("import { runScenario } from '../../lab/simulator/run.ts';").map((s) =>
      path.relative(SRC, path.resolve(path.join(SRC, 'cli'), s)),
    );
    expect(importsFromOutside(new Map([['cli/main.ts', { local }]]))).toEqual(['cli/main.ts → ../lab/simulator/run.ts']);
  });
});
