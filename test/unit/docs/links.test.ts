// Every repository path the docs cite must exist: markdown links (relative to the doc) and paths
// written out from the repository root (`src/…`, `lab/…`, `bench/results/…`). A moved or deleted file
// fails here instead of leaving a dead reference. Patterns (`qoe-*.yaml`, `no-<toggle>.yaml`,
// `no-$t.yaml`), a command's output (`--out DIR`, `--json FILE`) and paths in the repository's history
// (`7b00632:bench/results/…`) are not paths of the tree and are skipped.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '../../..');
const ROOTS = ['src', 'lab', 'test', 'bench', 'hack', 'docs', 'config', 'scenarios', 'charts', 'crds', 'python', 'traces', 'plugins'];
const WRITTEN_PATH = new RegExp(`(?<![\\w./:-])(?<!--out |--json )(?:${ROOTS.join('|')})/[\\w.\\-/]*`, 'g');
const PATTERN_NEXT = new Set(['*', '{', '<', '$', '…']);

/** Repository paths a markdown text cites that do not exist; `dir` is the doc's folder. */
export function deadReferences(text: string, dir: string, exists: (p: string) => boolean): string[] {
  const dead = new Set<string>();
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!.split('#')[0]!;
    if (target !== '' && !/^[a-z]+:/.test(target) && !exists(path.join(dir, target))) dead.add(m[1]!);
  }
  for (const m of text.matchAll(WRITTEN_PATH)) {
    const next = text[m.index + m[0].length] ?? '';
    // A sentence's full stop or a dash before a pattern is not part of the path.
    const written = m[0].replace(/[.-]+$/, '');
    if (!PATTERN_NEXT.has(next) && !exists(path.join(REPO, written))) dead.add(written);
  }
  return [...dead];
}

// Every markdown file under docs/, subfolders included (decisions/, results/).
const DOCS = [
  'README.md',
  ...readdirSync(path.join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('paths cited by the docs', () => {
  it.each(DOCS)('%s cites only paths that exist', (doc) => {
    const text = readFileSync(path.join(REPO, doc), 'utf8');
    expect(deadReferences(text, path.join(REPO, path.dirname(doc)), existsSync)).toEqual([]);
  });

  it('finds a dead link and a dead written path, and skips patterns (the check itself)', () => {
    const text =
      'see [a](gone.md), [b](ok.md#x), [c](https://x.io), `src/gone.ts`, `src/ok.ts`, `scenarios/qoe-*.yaml`, `abc1234:src/old.ts`, --out bench/new';
    const exists = (p: string) => p.endsWith('ok.md') || p.endsWith('src/ok.ts');
    expect(deadReferences(text, path.join(REPO, 'docs'), exists)).toEqual(['gone.md', 'src/gone.ts']);
  });
});
