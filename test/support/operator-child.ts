// `tfjob-operator run` as a real child process (node src/cli/main.ts, as the container runs dist/),
// for every test that kills, restarts, races or inspects the operator as a process: any kubeconfig
// (the shared cluster, a dedicated one, a ServiceAccount token, or the fault proxy), its own
// metrics/probe ports, every log line kept (and optionally appended to a file), SIGKILL-able, with
// its RSS readable from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../lab/local-cluster/index.ts';
import { freePorts } from '../../lab/local-cluster/ports.ts';
import { rssBytes } from './invariants.ts';
import { eventually } from './kube.ts';
import { parseMetrics, type Sample } from './prometheus.ts';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** When the test saw it exit (ISO). */
  readonly at?: string;
}

export interface ChildOptions {
  /** Also append every log line to this file. */
  readonly logFile?: string;
  /** Environment of the process besides PATH and HOME (nothing of the test's own leaks in). */
  readonly env?: Readonly<Record<string, string>>;
}

export class OperatorChild {
  readonly name: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly logs: string[] = [];
  readonly exited: Promise<ChildExit>;
  readonly #child: ChildProcess;
  #exit: ChildExit | undefined;

  private constructor(name: string, ports: [number, number], kubeconfig: string, args: readonly string[], opts: ChildOptions) {
    this.name = name;
    [this.metricsPort, this.healthPort] = ports;
    this.#child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'src', 'cli', 'main.ts'),
        'run',
        '--kubeconfig',
        kubeconfig,
        '--metrics-bind-address',
        `127.0.0.1:${this.metricsPort}`,
        '--health-probe-bind-address',
        `127.0.0.1:${this.healthPort}`,
        ...args,
      ],
      {
        cwd: REPO_ROOT,
        // Nothing from the test's environment leaks in (LOG_LEVEL, KUBECONFIG, ...): only flags count.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const collect = (stream: NodeJS.ReadableStream | null) => {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const l of lines) this.logs.push(l);
        if (opts.logFile !== undefined && lines.length > 0) appendFileSync(opts.logFile, `${lines.join('\n')}\n`);
      });
    };
    collect(this.#child.stdout);
    collect(this.#child.stderr);
    this.exited = new Promise((resolve) => {
      this.#child.on('exit', (code, signal) => {
        this.#exit = { code, signal, at: new Date().toISOString() };
        resolve(this.#exit);
      });
    });
  }

  /**
   * Debugging a scenario: FAULT_LOG_DIR keeps every operator's log in `<dir>/<name>.log`, and
   * FAULT_OPERATOR_LOG_LEVEL (e.g. debug) raises their log level.
   */
  static async start(name: string, kubeconfig: string, args: readonly string[], opts: ChildOptions = {}): Promise<OperatorChild> {
    // A free port is free only until someone binds it: another child started right after this one
    // may be handed the same ports before this one listens. Return only once it listens, and start
    // again on other ports if it lost that race.
    for (let attempt = 1; ; attempt++) {
      const child = await OperatorChild.spawn(name, kubeconfig, args, opts);
      if (await child.#listening()) return child;
      if (attempt >= 3 || !child.logs.some((l) => l.includes('EADDRINUSE'))) throw new Error(`${name} did not start\n${child.tail()}`);
    }
  }

  /** Starts the process and returns at once (for a test that expects it to exit, or to fail to listen). */
  static async spawn(name: string, kubeconfig: string, args: readonly string[], opts: ChildOptions = {}): Promise<OperatorChild> {
    const dir = process.env.FAULT_LOG_DIR;
    const level = process.env.FAULT_OPERATOR_LOG_LEVEL;
    const logFile = opts.logFile ?? (dir === undefined || dir === '' ? undefined : path.join(dir, `${name}.log`));
    const extra = level !== undefined && level !== '' && !args.includes('--log-level') ? ['--log-level', level] : [];
    const ports = (await freePorts(2)) as [number, number];
    return new OperatorChild(name, ports, kubeconfig, ['--identity', name, ...args, ...extra], {
      ...opts,
      ...(logFile === undefined ? {} : { logFile }),
    });
  }

  /**
   * True once this process says it serves both its ports (its own log lines: a port answering could be
   * another process's), false if it exits first.
   */
  async #listening(): Promise<boolean> {
    const deadline = Date.now() + 120_000;
    const serving = () => this.messages().filter((m) => m.msg === 'Serving metrics and health probes').length >= 2;
    while (this.running && Date.now() < deadline) {
      if (serving()) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.running && serving();
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  rss(): number | undefined {
    return this.running ? rssBytes(this.pid) : undefined;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ChildExit> {
    if (this.running) this.#child.kill(signal);
    return this.exited;
  }

  async metrics(): Promise<Sample[]> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`);
    if (!res.ok) throw new Error(`${this.name} /metrics: HTTP ${res.status}`);
    return parseMetrics(await res.text());
  }

  async probe(path: '/healthz' | '/readyz'): Promise<{ status: number; body: string }> {
    const res = await fetch(`http://127.0.0.1:${this.healthPort}${path}`);
    return { status: res.status, body: await res.text() };
  }

  async ready(timeoutMs = 90_000): Promise<void> {
    try {
      await eventually(
        async () => {
          if (!this.running) throw new Error(`${this.name} exited: ${JSON.stringify(this.#exit)}`);
          const res = await fetch(`http://127.0.0.1:${this.healthPort}/readyz`);
          return res.status === 200;
        },
        { timeoutMs, intervalMs: 250, what: `${this.name} ready` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${this.tail()}`, { cause: err });
    }
  }

  /** Parsed JSON log lines. */
  messages(): { level?: string; msg?: string; [k: string]: unknown }[] {
    return this.logs.flatMap((l) => {
      try {
        return [JSON.parse(l) as { msg?: string }];
      } catch {
        return [];
      }
    });
  }

  tail(lines = 30): string {
    return `--- ${this.name} (${this.running ? 'running' : `exited ${JSON.stringify(this.#exit)}`}) ---\n${this.logs.slice(-lines).join('\n')}`;
  }
}
