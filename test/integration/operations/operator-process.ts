// A real `tfjob-operator run` process for tests (node src/cli/main.ts, as the container runs dist/),
// with its own metrics/probe ports and its log lines kept for assertions and failure reports.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/local-cluster/index.ts';
import { freePorts } from '../../../src/local-cluster/ports.ts';
import { parseMetrics, type Sample } from '../install/helpers.ts';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class OperatorProcess {
  readonly identity: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly logs: string[] = [];
  readonly exited: Promise<Exit>;
  readonly #child: ChildProcess;
  #exit: Exit | undefined;

  private constructor(identity: string, metricsPort: number, healthPort: number, args: readonly string[]) {
    this.identity = identity;
    this.metricsPort = metricsPort;
    this.healthPort = healthPort;
    this.#child = spawn(process.execPath, [path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'run', ...args], {
      cwd: REPO_ROOT,
      // Only what a container would have: no KUBECONFIG, POD_NAME or other option from the test's env.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (stream: NodeJS.ReadableStream | null) => {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        this.logs.push(...lines);
      });
    };
    collect(this.#child.stdout);
    collect(this.#child.stderr);
    this.exited = new Promise((resolve) => {
      this.#child.on('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
    });
  }

  static async start(identity: string, args: readonly string[]): Promise<OperatorProcess> {
    const [metricsPort, healthPort] = (await freePorts(2)) as [number, number];
    return new OperatorProcess(identity, metricsPort, healthPort, [
      '--identity', identity,
      '--metrics-bind-address', `127.0.0.1:${metricsPort}`,
      '--health-probe-bind-address', `127.0.0.1:${healthPort}`,
      ...args,
    ]);
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.#child.kill(signal);
  }

  async metrics(): Promise<Sample[]> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`);
    if (!res.ok) throw new Error(`/metrics of ${this.identity}: HTTP ${res.status}`);
    return parseMetrics(await res.text());
  }

  async probe(path: '/healthz' | '/readyz'): Promise<{ status: number; body: string }> {
    const res = await fetch(`http://127.0.0.1:${this.healthPort}${path}`);
    return { status: res.status, body: await res.text() };
  }

  /** Parsed JSON log lines (pino). */
  messages(): { msg?: string; level?: string; [key: string]: unknown }[] {
    return this.logs.flatMap((l) => {
      try {
        return [JSON.parse(l) as { msg?: string }];
      } catch {
        return [];
      }
    });
  }

  tail(lines = 40): string {
    return `--- ${this.identity} (${this.running ? 'running' : `exited ${JSON.stringify(this.#exit)}`}) ---\n${this.logs.slice(-lines).join('\n')}`;
  }
}
