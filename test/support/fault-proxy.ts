// An HTTP proxy between an operator under test and the real kube-apiserver, for faults a healthy
// apiserver never produces on demand:
// - a seeded fraction of requests answered 429 or 500 (before forwarding, or after: the write was
//   applied but the client sees an error, as after a timeout);
// - watches that go silent without closing (the stream stops forwarding, the socket stays open);
// - every open watch cut at once (to make clients resume from an old resourceVersion, e.g. after an
//   etcd compaction, which then answers 410 Gone);
// - recording of request bodies (what exactly the operator sent).
// The operator talks TLS to it with the apiserver's own serving certificate (so the cluster's CA in
// the kubeconfig verifies it), and the proxy forwards each request, Authorization header included,
// over TLS to the apiserver. (client-node refuses plain HTTP unless TLS verification is skipped.)
import { readFileSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { rng, type Rng } from './prng.ts';

export interface FailureRule {
  /** Share of matching requests that fail (0..1). */
  readonly fraction: number;
  /** Status codes to answer, picked at random per failure. */
  readonly statuses: readonly (429 | 500 | 503)[];
  /** Share of failures applied after forwarding (the apiserver acted, the client sees an error). */
  readonly afterForwardFraction?: number;
  /** Fail watch requests too (their establishment). Default false. */
  readonly watches?: boolean;
  /** Only requests whose path contains one of these (default: all). */
  readonly paths?: readonly string[];
  /** Only these HTTP methods (default: all). */
  readonly methods?: readonly string[];
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly status: number;
}

export interface ProxyStats {
  requests: number;
  watches: number;
  /** Injected failures by status code. */
  readonly injected: Record<string, number>;
  frozenWatches: number;
  closedWatches: number;
  upstreamErrors: number;
}

interface ActiveWatch {
  readonly upstream: http.IncomingMessage;
  readonly client: http.ServerResponse;
  frozen: boolean;
}

function isWatch(url: URL): boolean {
  const w = url.searchParams.get('watch');
  return w === 'true' || w === '1';
}

function statusBody(code: number): string {
  const reason = code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : 'InternalError';
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `injected ${code} by the fault proxy`,
    reason,
    code,
  });
}

export class FaultProxy {
  readonly stats: ProxyStats = { requests: 0, watches: 0, injected: {}, frozenWatches: 0, closedWatches: 0, upstreamErrors: 0 };
  readonly recorded: RecordedRequest[] = [];
  readonly #server: https.Server;
  readonly #upstream: URL;
  readonly #caFile: string;
  readonly #agent: https.Agent;
  readonly #rng: Rng;
  readonly #watches = new Set<ActiveWatch>();
  #failures: FailureRule | undefined;
  #freezeNew = false;
  #refuseWatches = false;
  #record: ((method: string, path: string) => boolean) | undefined;
  #hold: { left: number; match: (method: string, path: string) => boolean } | undefined;
  readonly #held: (() => void)[] = [];

  private constructor(server: https.Server, upstream: string, caFile: string, seed: number) {
    this.#server = server;
    this.#upstream = new URL(upstream);
    this.#caFile = caFile;
    this.#agent = new https.Agent({ ca: readFileSync(caFile), keepAlive: true, maxSockets: 64 });
    this.#rng = rng(seed);
  }

  /**
   * `caFile` is the cluster's CA (the apiserver's self-signed serving certificate, for 127.0.0.1);
   * its key sits next to it (`apiserver.key`), and the proxy serves with the same pair.
   */
  static async start(opts: { upstream: string; caFile: string; seed: number }): Promise<FaultProxy> {
    const server = https.createServer({ cert: readFileSync(opts.caFile), key: readFileSync(opts.caFile.replace(/\.crt$/, '.key')) });
    const proxy = new FaultProxy(server, opts.upstream, opts.caFile, opts.seed);
    server.on('request', (req, res) => {
      proxy.#handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Starts (or with undefined, stops) failing a fraction of requests. */
  setFailures(rule: FailureRule | undefined): void {
    this.#failures = rule;
  }

  /** Silences every open watch (no more bytes, socket kept open); returns how many. */
  freezeWatches(opts: { alsoNew?: boolean } = {}): number {
    this.#freezeNew = opts.alsoNew ?? false;
    let n = 0;
    for (const w of this.#watches) {
      if (w.frozen) continue;
      w.frozen = true;
      w.upstream.unpipe(w.client);
      w.upstream.pause();
      n += 1;
    }
    this.stats.frozenWatches += n;
    return n;
  }

  /** New watches flow normally again (already frozen ones stay frozen until their client gives up). */
  thaw(): void {
    this.#freezeNew = false;
  }

  /** While on, new watch requests are answered 503 (other requests pass). */
  refuseWatches(on: boolean): void {
    this.#refuseWatches = on;
  }

  /** Cuts every open watch; clients reconnect from their last resourceVersion. */
  closeWatches(): number {
    let n = 0;
    for (const w of this.#watches) {
      w.upstream.destroy();
      w.client.destroy();
      n += 1;
    }
    this.#watches.clear();
    this.stats.closedWatches += n;
    return n;
  }

  get openWatches(): number {
    return this.#watches.size;
  }

  /**
   * Holds the next `count` requests matching `match` before they reach the apiserver, until
   * `release()`: the client waits for its answer meanwhile (a write in flight, as long as the test needs).
   */
  holdNext(count: number, match: (method: string, path: string) => boolean): void {
    this.#hold = { left: count, match };
  }

  /** How many requests are held now. */
  get held(): number {
    return this.#held.length;
  }

  /** Forwards every held request. */
  release(): void {
    this.#hold = undefined;
    for (const forward of this.#held.splice(0)) forward();
  }

  /** Keeps the bodies of requests matching `match` in `recorded`. */
  record(match: (method: string, path: string) => boolean): void {
    this.#record = match;
  }

  /** A kubeconfig file for the proxy, authenticating with `token` (forwarded to the apiserver). */
  writeKubeconfig(file: string, token: string): string {
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'fault-proxy', cluster: { server: this.url, 'certificate-authority': this.#caFile } }],
        users: [{ name: 'via-proxy', user: { token } }],
        contexts: [{ name: 'fault-proxy', context: { cluster: 'fault-proxy', user: 'via-proxy' } }],
        'current-context': 'fault-proxy',
      }),
      { mode: 0o600 },
    );
    return file;
  }

  async close(): Promise<void> {
    this.release();
    this.closeWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.#server.close(() => {
        resolve();
      }),
    );
    this.#agent.destroy();
  }

  #injected(code: number): void {
    this.stats.injected[String(code)] = (this.stats.injected[String(code)] ?? 0) + 1;
  }

  #decideFailure(method: string, url: URL, watch: boolean): { code: number; after: boolean } | undefined {
    const rule = this.#failures;
    if (rule === undefined || (watch && rule.watches !== true)) return undefined;
    if (rule.paths !== undefined && !rule.paths.some((p) => url.pathname.includes(p))) return undefined;
    if (rule.methods !== undefined && !rule.methods.includes(method)) return undefined;
    if (!this.#rng.chance(rule.fraction)) return undefined;
    const code = this.#rng.pick(rule.statuses);
    // Only writes can be "applied but reported failed"; a GET failing after the fact is the same as before.
    const after = method !== 'GET' && !watch && this.#rng.chance(rule.afterForwardFraction ?? 0);
    return { code, after };
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', this.#upstream);
    const watch = isWatch(url);
    this.stats.requests += 1;
    const failure = this.#decideFailure(method, url, watch);
    const fail = (code: number) => {
      this.#injected(code);
      res.writeHead(code, { 'Content-Type': 'application/json', ...(code === 429 ? { 'Retry-After': '1' } : {}) });
      res.end(statusBody(code));
    };
    if (watch && this.#refuseWatches) {
      req.resume();
      fail(503);
      return;
    }
    if (failure !== undefined && !failure.after) {
      req.resume();
      fail(failure.code);
      return;
    }
    const hold = this.#hold;
    if (hold !== undefined && hold.left > 0 && hold.match(method, url.pathname)) {
      hold.left -= 1;
      // The body stays buffered in the paused request until it is forwarded.
      this.#held.push(() => {
        this.#forward(req, res, method, url, watch, failure);
      });
      return;
    }
    this.#forward(req, res, method, url, watch, failure);
  }

  #forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    method: string,
    url: URL,
    watch: boolean,
    failure: { code: number; after: boolean } | undefined,
  ): void {
    const fail = (code: number) => {
      this.#injected(code);
      res.writeHead(code, { 'Content-Type': 'application/json', ...(code === 429 ? { 'Retry-After': '1' } : {}) });
      res.end(statusBody(code));
    };
    const chunks: Buffer[] = [];
    const recording = this.#record?.(method, url.pathname) === true;
    const headers = { ...req.headers, host: this.#upstream.host };
    const upstreamReq = https.request(
      {
        protocol: 'https:',
        hostname: this.#upstream.hostname,
        port: this.#upstream.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers,
        agent: watch ? new https.Agent({ ca: this.#agent.options.ca }) : this.#agent,
      },
      (up) => {
        if (recording)
          this.recorded.push({ method, path: url.pathname, body: Buffer.concat(chunks).toString('utf8'), status: up.statusCode ?? 0 });
        if (failure !== undefined) {
          up.resume();
          fail(failure.code);
          return;
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        if (watch && up.statusCode === 200) {
          // As the apiserver does: the client learns the watch is open before the first event.
          res.flushHeaders();
          this.stats.watches += 1;
          const w: ActiveWatch = { upstream: up, client: res, frozen: false };
          this.#watches.add(w);
          const forget = () => {
            this.#watches.delete(w);
          };
          up.on('close', () => {
            forget();
            if (!w.frozen) res.end();
          });
          res.on('close', () => {
            forget();
            up.destroy();
          });
          if (this.#freezeNew) {
            w.frozen = true;
            this.stats.frozenWatches += 1;
            up.pause();
            return;
          }
        }
        up.pipe(res);
      },
    );
    upstreamReq.on('error', () => {
      this.stats.upstreamErrors += 1;
      if (!res.headersSent) {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end(statusBody(503));
      } else res.destroy();
    });
    req.on('data', (c: Buffer) => {
      if (recording) chunks.push(c);
    });
    req.pipe(upstreamReq);
  }
}
