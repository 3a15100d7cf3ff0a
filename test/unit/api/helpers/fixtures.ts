// Loading the CRDs and the TFJob manifests of test/fixtures (reading files, no other I/O).

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const UPSTREAM_CRD_PATH = join(REPO, 'test/fixtures/kubeflow.org_tfjobs.v1.8.1.yaml');
export const OUR_CRD_PATH = join(REPO, 'crds/kubeflow.org_tfjobs.yaml');

export type Json = Record<string, unknown>;

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

function asObject(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value as Json;
}

/** The openAPIV3Schema of the single version of a CRD file. */
export function crdSchema(path: string): Json {
  const crd = asObject(parse(readText(path)), path);
  const versions = asObject(crd.spec, 'spec').versions;
  if (!Array.isArray(versions)) throw new Error('no versions');
  const version = asObject(versions[0], 'version');
  return asObject(asObject(version.schema, 'schema').openAPIV3Schema, 'openAPIV3Schema');
}

export function crdVersion(path: string): Json {
  const crd = asObject(parse(readText(path)), path);
  const versions = asObject(crd.spec, 'spec').versions as unknown[];
  return asObject(versions[0], 'version');
}

export interface Manifest {
  readonly file: string;
  readonly object: Json;
  /** `# expect:` */
  readonly expect?: string;
  /** `# rejected-by:` */
  readonly rejectedBy?: string;
}

function header(text: string, key: string): string | undefined {
  const match = new RegExp(`^# ${key}: (.*)$`, 'm').exec(text);
  return match?.[1]?.trim();
}

export function manifests(kind: 'valid' | 'invalid'): Manifest[] {
  const dir = join(REPO, 'test/fixtures/tfjobs', kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const text = readText(join(dir, file));
      const expect = header(text, 'expect');
      const rejectedBy = header(text, 'rejected-by');
      return {
        file,
        object: asObject(parse(text), file),
        ...(expect === undefined ? {} : { expect }),
        ...(rejectedBy === undefined ? {} : { rejectedBy }),
      };
    });
}
