// Restarting a running real node's kubelet, as a fault (a crash, then systemd starting it again): the
// kubelet is SIGKILLed and started again with the same binary and arguments (read from /proc), its
// log appended to. The state file and the watchdog's PID file name the new process, so any process
// that tears the node down from its state (RealNode.stop, `cluster down`) stops the new kubelet.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, ManagedProcess } from '../process.ts';
import { readRealNodeState, REAL_NODE_STATE, type RealNodeState } from './teardown.ts';

/** SIGKILLs the kubelet of the real node in `workDir` and starts it again; returns the new PID. */
export async function restartKubelet(workDir: string, downMs = 0): Promise<number> {
  const state = readRealNodeState(workDir);
  const old = state?.processes.kubelet;
  if (state === undefined || old === undefined) throw new Error(`no real node with a kubelet in ${workDir}`);
  const [binary, ...args] = readFileSync(`/proc/${old.pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
  if (binary === undefined || !binary.endsWith('kubelet')) throw new Error(`process ${old.pid} is not the kubelet (${binary})`);
  process.kill(old.pid, 'SIGKILL');
  while (isAlive(old.pid)) await sleep(100);
  if (downMs > 0) await sleep(downMs);
  const kubelet = ManagedProcess.start('kubelet', binary, args, { logFile: old.log, cwd: workDir });
  const next: RealNodeState = { ...state, processes: { ...state.processes, kubelet: { pid: kubelet.pid, log: old.log } } };
  writeFileSync(path.join(workDir, REAL_NODE_STATE), JSON.stringify(next, null, 2));
  writeFileSync(
    path.join(workDir, 'pids'),
    Object.values(next.processes)
      .map((p) => `${p.pid}\n`)
      .join(''),
  );
  return kubelet.pid;
}
