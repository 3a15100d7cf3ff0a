// Writes crds/kubeflow.org_tfjobs.yaml from tf-operator v1.8.1's CRD plus our additions
// (hack/crd-generate.ts). Run: `npm run gen:crd` (or `node hack/gen-crd.ts [--check]`).
// With --check it writes nothing and exits 1 when the committed CRD is stale.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCrd } from './crd-generate.ts';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
export const UPSTREAM_CRD_PATH = join(repo, 'test/fixtures/kubeflow.org_tfjobs.v1.8.1.yaml');
export const OUR_CRD_PATH = join(repo, 'crds/kubeflow.org_tfjobs.yaml');

const generated = generateCrd(readFileSync(UPSTREAM_CRD_PATH, 'utf8'));
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUR_CRD_PATH, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  if (current !== generated) {
    console.error(`${OUR_CRD_PATH} is stale: run npm run gen:crd`);
    process.exitCode = 1;
  }
} else {
  writeFileSync(OUR_CRD_PATH, generated);
  console.log(`wrote ${OUR_CRD_PATH} (${generated.length} bytes)`);
}
