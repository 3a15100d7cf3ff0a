// Child processes of the local control plane. Each runs in its own process group with its output in a
// log file, so a crash of the parent never leaves a terminal full of apiserver logs, and a watchdog
// (see startWatchdog) can kill the whole group when the parent dies without cleaning up.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessOptions {
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

export class ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  #child: ChildProcess;
  #exitStatus: number | string | undefined;

  private constructor(name: string, child: ChildProcess, logFile: string) {
    if (child.pid === undefined) throw new Error(`${name} did not start`);
    this.name = name;
    this.pid = child.pid;
    this.logFile = logFile;
    this.#child = child;
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#exitStatus = code ?? signal ?? 'unknown';
        resolve(this.#exitStatus);
      });
    });
  }

  static start(name: string, binary: string, args: readonly string[], options: ProcessOptions): ManagedProcess {
    const fd = openSync(options.logFile, 'a');
    try {
      const child = spawn(binary, args, {
        stdio: ['ignore', fd, fd],
        detached: true,
        env: options.env ?? process.env,
        cwd: options.cwd,
      });
      // Do not keep the parent's event loop alive for a child it is not waiting on.
      child.unref();
      return new ManagedProcess(name, child, options.logFile);
    } finally {
      closeSync(fd);
    }
  }

  get running(): boolean {
    return this.#exitStatus === undefined;
  }

  get exitStatus(): number | string | undefined {
    return this.#exitStatus;
  }

  /** SIGTERM to the process group, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    // The child is unreferenced (see start); while waiting for its exit it must hold the event loop,
    // or a parent with nothing else to do exits before the child has (with its await unsettled).
    this.#child.ref();
    signalGroup(this.pid, 'SIGTERM');
    const timedOut = Symbol('timeout');
    const result = await Promise.race([this.exited, sleep(graceMs, timedOut)]);
    if (result === timedOut) {
      signalGroup(this.pid, 'SIGKILL');
      await this.exited;
    }
    this.#child.removeAllListeners();
  }
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** SIGTERM to a process group started elsewhere (known by PID only), then SIGKILL after `graceMs`. */
export async function stopGroupByPid(pid: number, graceMs: number): Promise<void> {
  if (!isAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a detached shell that waits for `parentPid` to disappear, then kills every process group
 * listed in `pidFile` and removes `removeDir` (if given). This is what makes a crashed or SIGKILLed
 * test run leave no orphaned processes, ports or temp dirs. The watchdog exits by itself when
 * `stopFile` is removed (a normal stop).
 */
export function startWatchdog(opts: { parentPid: number; pidFile: string; stopFile: string; removeDir?: string }): number {
  const script = [
    'while kill -0 "$PARENT" 2>/dev/null; do',
    '  [ -e "$STOPFILE" ] || exit 0',
    '  sleep 1',
    'done',
    '[ -e "$STOPFILE" ] || exit 0',
    'if [ -f "$PIDFILE" ]; then',
    '  for p in $(cat "$PIDFILE"); do kill -TERM "-$p" 2>/dev/null; done',
    '  sleep 2',
    '  for p in $(cat "$PIDFILE"); do kill -KILL "-$p" 2>/dev/null; done',
    'fi',
    '[ -n "$REMOVEDIR" ] && rm -rf "$REMOVEDIR"',
    'exit 0',
  ].join('\n');
  const child = spawn('sh', ['-c', script], {
    stdio: 'ignore',
    detached: true,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PARENT: String(opts.parentPid),
      PIDFILE: opts.pidFile,
      STOPFILE: opts.stopFile,
      REMOVEDIR: opts.removeDir ?? '',
    },
  });
  child.unref();
  if (child.pid === undefined) throw new Error('could not start the local cluster watchdog');
  return child.pid;
}
