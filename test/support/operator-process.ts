// The operator as a real child process (`tfjob-operator run`), for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/local-cluster/index.ts';
import { clusterState } from './kube.ts';

export interface OperatorProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnOperator(args: readonly string[], logFile?: string): OperatorProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'run', '--kubeconfig', clusterState().kubeconfig, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info' },
  });
  if (logFile !== undefined) {
    const out = createWriteStream(logFile, { flags: 'a' });
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  } else {
    child.stdout.resume();
    child.stderr.resume();
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { resolve(code); }));
  return {
    child,
    exited,
    kill: async (signal = 'SIGKILL') => {
      child.kill(signal);
      return exited;
    },
  };
}
