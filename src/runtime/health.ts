// One small HTTP server for /metrics, /healthz and /readyz (controller-runtime serves them on two
// ports; one is simpler to run locally, and the manifests can still split them with two flags).
import http from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.ts';

export type Check = () => { ok: boolean; detail?: string };

export interface HealthServerOptions {
  readonly address: string;
  readonly registry?: Registry;
  readonly healthChecks?: Readonly<Record<string, Check>>;
  readonly readyChecks?: Readonly<Record<string, Check>>;
  readonly logger: Logger;
}

/**
 * `host:port`, `[ipv6]:port`, or `:port` / `port` for every interface. "Every interface" is left to
 * Node (host undefined), which listens on `::` and so accepts IPv4 and IPv6 like Go's `:8081`: on an
 * IPv6-only cluster the kubelet probes the pod's IPv6 address, which a `0.0.0.0` socket refuses.
 */
export function parseAddress(address: string): { host: string | undefined; port: number } {
  const idx = address.lastIndexOf(':');
  const host = (idx <= 0 ? '' : address.slice(0, idx)).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(idx + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid listen address "${address}"`);
  return { host: host === '' ? undefined : host, port };
}

export class HealthServer {
  readonly #server: http.Server;
  readonly #opts: HealthServerOptions;

  constructor(opts: HealthServerOptions) {
    this.#opts = opts;
    this.#server = http.createServer((req, res) => {
      void this.#handle(req, res);
    });
  }

  async listen(): Promise<number> {
    const { host, port } = parseAddress(this.#opts.address);
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ port, host }, () => {
        resolve();
      });
    });
    const addr = this.#server.address();
    const bound = typeof addr === 'object' && addr !== null ? addr.port : port;
    const shown = typeof addr === 'object' && addr !== null ? (addr.family === 'IPv6' ? `[${addr.address}]` : addr.address) : String(host);
    this.#opts.logger.info({ address: `${shown}:${bound}` }, 'Serving metrics and health probes');
    return bound;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#server.close(() => {
        resolve();
      }),
    );
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (path === '/metrics' && this.#opts.registry !== undefined) {
        const body = await this.#opts.registry.metrics();
        res.writeHead(200, { 'Content-Type': this.#opts.registry.contentType }).end(body);
      } else if (path === '/healthz' || path === '/livez') {
        this.#checks(res, this.#opts.healthChecks ?? {});
      } else if (path === '/readyz') {
        this.#checks(res, this.#opts.readyChecks ?? {});
      } else {
        res.writeHead(404).end('not found\n');
      }
    } catch (err) {
      this.#opts.logger.error({ err }, 'Metrics/health request failed');
      res.writeHead(500).end('internal error\n');
    }
  }

  #checks(res: http.ServerResponse, checks: Readonly<Record<string, Check>>): void {
    const lines: string[] = [];
    let ok = true;
    for (const [name, check] of Object.entries(checks)) {
      const r = check();
      ok &&= r.ok;
      lines.push(`[${r.ok ? '+' : '-'}]${name} ${r.ok ? 'ok' : `failed${r.detail === undefined ? '' : `: ${r.detail}`}`}`);
    }
    res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(`${lines.join('\n')}\n${ok ? 'ok' : 'check failed'}\n`);
  }
}
