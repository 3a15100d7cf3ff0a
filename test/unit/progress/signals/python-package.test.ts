// python/ is the pip package tfjob-progress, versioned with the operator: pyproject.toml's version,
// tfjob_progress.__version__ and package.json's version are one number. (Installing it with pip and
// running its Keras callback under real Keras is test/real-node/keras.test.ts.)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

describe('the tfjob-progress package', () => {
  const operator = (JSON.parse(read('package.json')) as { version: string }).version;

  it('has the operator’s version in pyproject.toml and in tfjob_progress.__version__', () => {
    const pyproject = read('python/pyproject.toml');
    expect(/^\[project\][\s\S]*?^version = "([^"]+)"$/m.exec(pyproject)?.[1]).toBe(operator);
    expect(/^__version__ = "([^"]+)"/m.exec(read('python/tfjob_progress.py'))?.[1]).toBe(operator);
  });

  it('declares no dependencies and ships the one module', () => {
    const pyproject = read('python/pyproject.toml');
    expect(pyproject).toMatch(/^dependencies = \[\]$/m);
    expect(pyproject).toMatch(/^py-modules = \["tfjob_progress"\]$/m);
    // Module-level imports only from the standard library (Keras is imported when the callback is made).
    expect(read('python/tfjob_progress.py')).not.toMatch(/^(import|from) (?!(json|math|os|re|signal|sys|threading|time)\b)\w+/m);
  });
});
