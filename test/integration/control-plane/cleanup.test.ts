// A crashed owner (SIGKILL, no chance to clean up) must leave no processes, ports or temp dirs behind.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../../lab/local-cluster/index.ts';
import { eventually } from '../../support/kube.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => {
      resolve(false);
    });
    s.listen(port, '127.0.0.1', () =>
      s.close(() => {
        resolve(true);
      }),
    );
  });
}

describe('local cluster cleanup', () => {
  it('kills every component and removes its temp dir when the owning process is SIGKILLed', async () => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../../support/cluster-child.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const state = await new Promise<ClusterState>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as ClusterState);
      });
      child.on('exit', (code) => {
        reject(new Error(`child exited early with ${String(code)}`));
      });
    });
    const pids = Object.values(state.processes).map((p) => p.pid);
    expect(pids.length).toBeGreaterThanOrEqual(4);
    expect(pids.every(alive)).toBe(true);
    expect(existsSync(state.workDir)).toBe(true);
    const apiPort = Number(new URL(state.server).port);

    child.kill('SIGKILL');

    await eventually(async () => !pids.some(alive) && !existsSync(state.workDir) && (await portFree(apiPort)), {
      timeoutMs: 30_000,
      what: 'the watchdog to stop every component and remove the work dir',
    });
  });
});
