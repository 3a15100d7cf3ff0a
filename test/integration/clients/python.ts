// Runs the pinned Python clients (test/clients/requirements.txt) for the client-compatibility tests:
// the venv is created on first use by hack/python-venv.sh (idempotent, hash-checked, locked), the SDK
// is driven through test/clients/sdk_driver.py (one JSON request/answer per line), and one-shot
// scripts such as the KFP launcher reproduction run as plain child processes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLIENTS_DIR = path.join(REPO, 'test', 'clients');

let venv: Promise<string> | undefined;

/** The venv's python, creating the venv the first time (prints pip's progress to stderr). */
export function pythonVenv(): Promise<string> {
  venv ??= new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [path.join(REPO, 'hack', 'python-venv.sh')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const python = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && python !== '') resolve(python);
      else reject(new Error(`hack/python-venv.sh failed with exit code ${String(code)}:\n${stderr.slice(-4000)}`));
    });
  });
  return venv;
}

export interface PythonError {
  type: string;
  message: string;
  cause_type: string | null;
  cause: string | null;
}

export type DriverReply =
  { id: number; ok: true; type: string; value: unknown; callback_saw?: string[][] } | { id: number; ok: false; error: PythonError };

/** A running test/clients/sdk_driver.py: each request is one Kubeflow SDK call, answered in order. */
export class SdkDriver {
  private readonly pending = new Map<number, (reply: DriverReply) => void>();
  private nextId = 1;
  private stderr = '';
  private exited: string | undefined;
  private readonly child: ChildProcessWithoutNullStreams;

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as DriverReply;
      const resolve = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      resolve?.(reply);
    });
    child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-8000);
    });
    child.on('close', (code, signal) => {
      this.exited = `sdk_driver.py exited (code ${String(code)}, signal ${String(signal)}); stderr:\n${this.stderr}`;
      for (const resolve of this.pending.values())
        resolve({ id: -1, ok: false, error: { type: 'DriverExited', message: this.exited, cause_type: null, cause: null } });
      this.pending.clear();
    });
  }

  static async start(): Promise<SdkDriver> {
    const python = await pythonVenv();
    const child = spawn(
      python,
      [path.join(CLIENTS_DIR, 'sdk_driver.py'), '--log-level', process.env.TEST_LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARNING'],
      {
        cwd: REPO,
        stdio: ['pipe', 'pipe', 'pipe'],
        // No ~/.kube/config or in-cluster config may leak in: every client gets the test kubeconfig.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      },
    );
    return new SdkDriver(child);
  }

  /** Sends one request and waits for its answer (or fails after timeoutMs). */
  async request(op: string, args: Record<string, unknown>, timeoutMs = 100_000): Promise<DriverReply> {
    if (this.exited !== undefined) throw new Error(this.exited);
    const id = this.nextId++;
    const reply = new Promise<DriverReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`sdk_driver.py gave no answer to ${op} ${JSON.stringify(args)} within ${timeoutMs} ms; stderr:\n${this.stderr}`));
      }, timeoutMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
    this.child.stdin.write(`${JSON.stringify({ id, op, args })}\n`);
    return reply;
  }

  /** An SDK call that must succeed: returns what the SDK returned, with its Python type. */
  async ok(
    op: string,
    args: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<{ type: string; value: unknown; callbackSaw: string[][] }> {
    const reply = await this.request(op, args, timeoutMs);
    if (!reply.ok)
      throw new Error(
        `SDK ${op} ${JSON.stringify(args)} raised ${reply.error.type}: ${reply.error.message}\ncaused by ${String(reply.error.cause_type)}: ${String(reply.error.cause)}`,
      );
    return { type: reply.type, value: reply.value, callbackSaw: reply.callback_saw ?? [] };
  }

  /** An SDK call that must raise: returns the exception. */
  async fails(op: string, args: Record<string, unknown>, timeoutMs?: number): Promise<PythonError> {
    const reply = await this.request(op, args, timeoutMs);
    if (reply.ok)
      throw new Error(`SDK ${op} ${JSON.stringify(args)} was expected to raise but returned ${reply.type}: ${JSON.stringify(reply.value)}`);
    return reply.error;
  }

  /** Shorthand for one TrainingClient method call. */
  call(
    method: string,
    kwargs: Record<string, unknown>,
    opts: { client?: string; timeoutMs?: number } = {},
  ): Promise<{ type: string; value: unknown; callbackSaw: string[][] }> {
    return this.ok('call', { method, kwargs, ...(opts.client === undefined ? {} : { client: opts.client }) }, opts.timeoutMs);
  }

  callFails(method: string, kwargs: Record<string, unknown>, opts: { client?: string; timeoutMs?: number } = {}): Promise<PythonError> {
    return this.fails('call', { method, kwargs, ...(opts.client === undefined ? {} : { client: opts.client }) }, opts.timeoutMs);
  }

  async close(): Promise<void> {
    if (this.exited !== undefined) return;
    const closed = new Promise<void>((resolve) =>
      this.child.once('close', () => {
        resolve();
      }),
    );
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await closed;
    clearTimeout(timer);
  }
}

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout lines that are JSON objects, in order. */
  records: Record<string, unknown>[];
}

/** Runs test/clients/<script> with the venv's python; resolves when it exits (never rejects on exit code). */
export async function runPythonScript(
  script: string,
  args: readonly string[],
  opts: { timeoutMs?: number; onRecord?: (r: Record<string, unknown>) => void } = {},
): Promise<PythonRun> {
  const python = await pythonVenv();
  return new Promise<PythonRun>((resolve, reject) => {
    const child = spawn(python, [path.join(CLIENTS_DIR, script), ...args], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    });
    const run: PythonRun = { code: null, stdout: '', stderr: '', records: [] };
    createInterface({ input: child.stdout }).on('line', (line) => {
      run.stdout += `${line}\n`;
      if (!line.startsWith('{')) return;
      const record = JSON.parse(line) as Record<string, unknown>;
      run.records.push(record);
      opts.onRecord?.(record);
    });
    child.stderr.on('data', (d: Buffer) => {
      run.stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish within ${opts.timeoutMs ?? 120_000} ms; stderr:\n${run.stderr.slice(-4000)}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      run.code = code;
      resolve(run);
    });
  });
}
