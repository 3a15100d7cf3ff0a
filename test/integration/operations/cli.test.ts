// `tfjob-operator run` as a process refuses bad configuration before touching the cluster (exit 2,
// naming the option, from flags or --config) and reports a failed start in its JSON log
// (exit 1), so a misconfigured Deployment shows why in `kubectl logs` and CrashLoopBackOff.
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterState } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';

describe('tfjob-operator run (process)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-cli-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const exitOf = async (args: readonly string[]) => {
    const p = await OperatorChild.spawn('cli', clusterState().kubeconfig, args);
    const exit = await p.exited;
    return { exit, p };
  };

  it('exits 2 on invalid values and unknown flags, naming the option', async () => {
    const bad = await exitOf(['--leader-election-renew-deadline', '20s']);
    expect(bad.exit.code).toBe(2);
    expect(bad.p.logs.join('\n')).toContain('--leader-election-renew-deadline: must be shorter than leader-election-lease-duration');

    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'policy: fastest\n');
    const fromFile = await exitOf(['--config', file]);
    expect(fromFile.exit.code).toBe(2);
    expect(fromFile.p.logs.join('\n')).toMatch(/--policy: .*"ours"/);

    const unknown = await exitOf(['--leader-elect-please']);
    expect(unknown.exit.code).toBe(2);
    expect(unknown.p.logs.join('\n')).toContain('unknown flag --leader-elect-please');
  });

  it('exits 1 with a fatal JSON log line when it cannot listen', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => {
        resolve();
      }),
    );
    const port = (blocker.address() as { port: number }).port;
    try {
      // OperatorChild picks free ports; the later flag wins, so metrics goes to the busy one.
      const { exit, p } = await exitOf(['--policy', 'tf-operator', '--metrics-bind-address', `127.0.0.1:${port}`]);
      expect(exit.code, p.tail()).toBe(1);
      const fatal = p.messages().find((m) => m.level === 'fatal');
      expect(fatal?.msg).toBe('Failed to start');
      expect(JSON.stringify(fatal?.err)).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });
});
