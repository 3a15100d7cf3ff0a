// The operator under test runs from a snapshot of a committed revision, not from the working tree:
// other engineers edit src/ in the same checkout while a benchmark series runs for hours, and a
// half-edited file must not end up in a measurement (nor an uncommitted change in a figure).
// `worktree` runs the checkout as it is. The memory benchmark also uses this for before/after runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../lab/local-cluster/index.ts';

export interface SourceTree {
  /** Directory containing src/ (and lab/ from revisions that have it) and package.json to run from. */
  readonly root: string;
  /** Full commit id, or `worktree`. */
  readonly revision: string;
  remove(): void;
}

function hasPath(commit: string, p: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}:${p}`], { cwd: REPO_ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The simulator's entry point in a source tree: lab/cli/main.ts, or src/cli/main.ts in older revisions. */
export function simulatorMain(root: string): string {
  const lab = path.join(root, 'lab', 'cli', 'main.ts');
  return existsSync(lab) ? lab : path.join(root, 'src', 'cli', 'main.ts');
}

export function snapshotSource(rev: string, extra: readonly string[] = []): SourceTree {
  if (rev === 'worktree') return { root: REPO_ROOT, revision: 'worktree', remove: () => undefined };
  const commit = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const root = mkdtempSync(path.join(os.tmpdir(), `tfjob-src-${commit.slice(0, 8)}-`));
  // Revisions before the lab left src/ have no lab/ folder.
  const lab = hasPath(commit, 'lab') ? ['lab'] : [];
  const tar = execFileSync('git', ['archive', '--format=tar', commit, 'src', ...lab, 'scenarios', 'package.json', ...extra], {
    cwd: REPO_ROOT,
    maxBuffer: 256 * 2 ** 20,
  });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  // Dependencies are shared with the checkout (read-only use).
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return {
    root,
    revision: commit,
    remove: () => {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
