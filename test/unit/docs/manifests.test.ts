// Static facts about the install artefacts that the integration tests cannot see from a cluster.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';

const read = (...p: string[]) => readFileSync(path.join(REPO_ROOT, ...p), 'utf8');

describe('install artefacts', () => {
  it('config/crd carries the generated CRD byte for byte (cp crds/kubeflow.org_tfjobs.yaml config/crd/bases/ after npm run gen:crd)', () => {
    expect(read('config', 'crd', 'bases', 'kubeflow.org_tfjobs.yaml') === read('crds', 'kubeflow.org_tfjobs.yaml')).toBe(true);
  });

  it('config/crd carries the queue CRDs byte for byte', () => {
    for (const f of ['tfjob-operator.kubeflow.org_clusterqueues.yaml', 'tfjob-operator.kubeflow.org_localqueues.yaml']) {
      expect(read('config', 'crd', 'bases', f) === read('crds', f), f).toBe(true);
    }
  });

  it('the Dockerfile copies only files that exist and that .dockerignore lets through', () => {
    const dockerfile = read('Dockerfile');
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''));
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) {
      const name = s.replace(/\/$/, '');
      expect(existsSync(path.join(REPO_ROOT, name)), name).toBe(true);
      expect(allowed, name).toContain(name);
    }
  });

  it('the image runs what `npm run build` produces, as a numeric non-root user', () => {
    const dockerfile = read('Dockerfile');
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { outDir: string; rootDir: string } };
    // The compiler, then the dashboard's static page copied beside the compiled code (tsc copies no assets).
    expect(pkg.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json && .*cpSync\('src\/dashboard\/web', 'dist\/dashboard\/web'/);
    expect(build.compilerOptions).toMatchObject({ outDir: 'dist', rootDir: 'src' });
    expect(existsSync(path.join(REPO_ROOT, 'src', 'cli', 'main.ts'))).toBe(true);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "dist/cli/main.js", "run"]');
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev /m);
    expect(dockerfile).toMatch(/^USER \d+:\d+$/m);
  });
});
