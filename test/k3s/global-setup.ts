// Decides once whether the k3s suite can run here and says so loudly when it cannot.
import type { TestProject } from 'vitest/node';
import { checkDocker, type DockerCheck } from './testcontainers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    k3sDocker: DockerCheck;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const check = await checkDocker();
  if (check.available) {
    process.stderr.write(`[k3s-e2e] Docker engine found: ${check.engine}\n`);
  } else {
    const line = '='.repeat(100);
    process.stderr.write(
      `${line}\n[k3s-e2e] SKIPPED: the k3s end-to-end suite did not run because ${check.reason}.\n` +
        '[k3s-e2e] It needs a reachable Docker engine (DOCKER_HOST or /var/run/docker.sock) that can run privileged containers;\n' +
        '[k3s-e2e] see docs/k3s-e2e.md. Set TFJOB_K3S_REQUIRED=1 to make this an error instead of a skip.\n' +
        `${line}\n`,
    );
    if (process.env.TFJOB_K3S_REQUIRED === '1') throw new Error(`k3s e2e suite required (TFJOB_K3S_REQUIRED=1) but ${check.reason}`);
  }
  project.provide('k3sDocker', check);
}
