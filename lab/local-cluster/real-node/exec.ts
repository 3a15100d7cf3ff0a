// Running host commands for the real node: every call is bounded in time, and a failure names the
// command with the tail of what it printed, so a broken set-up says why.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  /** Lines of output streamed as they come (long builds). */
  readonly onLine?: (line: string) => void;
  /** Resolve with the exit code instead of throwing on a non-zero exit. */
  readonly allowFailure?: boolean;
}

export interface RunResult {
  readonly code: number;
  readonly output: string;
}

export async function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let pending = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    // Keep the last 64 KiB only: a build can print megabytes, and the tail is what explains a failure.
    output = (output + text).slice(-65_536);
    if (options.onLine === undefined) return;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) options.onLine(line);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
  }, timeoutMs);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, signal) => {
      resolve(c ?? (signal === null ? 1 : 128 + 9));
    });
  }).finally(() => {
    clearTimeout(timer);
  });
  if (pending !== '' && options.onLine) options.onLine(pending);
  if (code !== 0 && options.allowFailure !== true) {
    const tail = output.trimEnd().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited with ${code}${code === 137 ? ' (killed: timeout?)' : ''}\n${tail}`);
  }
  return { code, output };
}

/** Whether `command` is on PATH. */
export async function hasCommand(command: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${command}`], { allowFailure: true })).code === 0;
}

/** Mount points under `dir` (itself included), deepest first. */
export function mountsUnder(dir: string): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Unmounts everything under `dir` (lazily where busy), so that removing it cannot reach into a mount. */
export async function unmountUnder(dir: string): Promise<string[]> {
  for (const point of mountsUnder(dir)) {
    if ((await run('umount', [point], { allowFailure: true })).code !== 0) await run('umount', ['-l', point], { allowFailure: true });
  }
  return mountsUnder(dir);
}
