// Readable at once: no file in src/ over 400 lines, no function over 80 lines except the ones
// docs/architecture.md names with its reason (kept whole on purpose).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/** file:function of the functions docs/architecture.md names as kept whole. */
const KEPT_WHOLE = ['src/scheduler/model/scale-in.ts:scaleInFor', 'src/scheduler/model/placement.ts:computePlacement'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined) return node.name.getText();
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent))
      return parent.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '<anonymous>';
}

/** Every function-like node longer than the limit, as file:name (lines). */
function longFunctions(path: string): { id: string; lines: number }[] {
  const text = readFileSync(path, 'utf8');
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: { id: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ id: `${relative(ROOT, path)}:${nameOf(node)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('sizes in src/', () => {
  const files = sourceFiles(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines but those named in docs/architecture.md`, () => {
    const long = files.flatMap(longFunctions);
    expect(long.filter((f) => !KEPT_WHOLE.includes(f.id))).toEqual([]);
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    for (const id of KEPT_WHOLE) expect(doc).toContain(`\`${id.split(':')[1] ?? ''}\``);
  });
});
