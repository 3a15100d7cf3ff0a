// API clients that share one client-side rate limit (QPS/burst, like client-go's) and count every
// request by verb and status code (rest_client_requests_total). client-node has neither, so every
// generated API client is built here on an HttpLibrary that waits for a token and records the call.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiException,
  createConfiguration,
  Observable,
  RequestContext as ClientRequestContext,
  ServerConfiguration,
  type HttpLibrary,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import type { RuntimeMetrics } from './metrics.ts';
import { BucketRateLimiter } from './rate-limiter.ts';

export interface ClientRateLimit {
  /** Sustained requests per second (≤ 0 disables client-side limiting). */
  readonly qps: number;
  readonly burst: number;
}

export const DEFAULT_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: 50, burst: 100 };

/** Request counts by `METHOD code`, for benchmarks (the same numbers feed the Prometheus counter). */
export class RequestCounter {
  readonly counts = new Map<string, number>();

  record(method: string, code: string): void {
    const key = `${method} ${code}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  byMethod(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, n] of this.counts) {
      const method = key.split(' ')[0] ?? key;
      out[method] = (out[method] ?? 0) + n;
    }
    return out;
  }

  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }
}

type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type ApiConstructor<T> = new (config: ReturnType<typeof createConfiguration>) => T;

/**
 * How long one connection pool (undici dispatcher) serves requests before the next request builds a
 * new one from the kubeconfig: rotated client certificates and CA files take effect within this.
 */
export const DISPATCHER_REFRESH_MS = 10 * 60_000;

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * The kubeconfig's authentication with one connection pool for all requests. client-node's
 * KubeConfig builds a new undici Agent on every request, so every request opened a new TCP and TLS
 * connection, and a burst spent much of the operator's CPU in TLS handshakes (docs/benchmarks.md §3). Headers (bearer
 * tokens, exec credentials) are still applied per request; only the dispatcher is reused.
 */
class PooledKubeConfigAuth implements SecurityAuthentication {
  readonly #kc: KubeConfig;
  #dispatcher: Dispatcher | undefined;
  #builtAt = 0;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  getName(): string {
    return 'kubeconfig authentication (pooled connections)';
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.#kc.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    // No dispatcher: plain http or no TLS material; fetch's global pool already reuses connections.
    if (fresh === undefined) return;
    const now = performance.now();
    if (this.#dispatcher === undefined || now - this.#builtAt > DISPATCHER_REFRESH_MS) {
      // The replaced pool finishes its in-flight requests, then closes its sockets.
      void this.#dispatcher?.close().catch(() => undefined);
      this.#dispatcher = fresh;
      this.#builtAt = now;
    } else {
      // The per-request agent never connected: nothing to close.
      context.setDispatcher(this.#dispatcher);
    }
  }
}

export class KubeClients {
  readonly kubeConfig: KubeConfig;
  readonly requests = new RequestCounter();
  readonly #server: string;
  readonly #auth: SecurityAuthentication;
  readonly #httpApi: HttpLibrary;
  readonly #limiter: BucketRateLimiter | undefined;
  readonly #metrics: RuntimeMetrics | undefined;
  readonly #userAgent: string | undefined;

  /**
   * `userAgent` names the caller in the API server's audit log and request metrics, as client-go's
   * `<binary>/<version> (<os>/<arch>)` does: which replica made a write is then on record.
   */
  constructor(kc: KubeConfig, opts: { rateLimit?: ClientRateLimit; metrics?: RuntimeMetrics; userAgent?: string } = {}) {
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error('the kubeconfig has no current cluster');
    this.kubeConfig = kc;
    this.#server = cluster.server;
    this.#auth = new PooledKubeConfigAuth(kc);
    const rate = opts.rateLimit ?? DEFAULT_CLIENT_RATE_LIMIT;
    this.#limiter = rate.qps > 0 ? new BucketRateLimiter(rate.qps, Math.max(1, rate.burst)) : undefined;
    this.#metrics = opts.metrics;
    this.#userAgent = opts.userAgent;
    const inner = createConfiguration({ baseServer: new ServerConfiguration(this.#server, {}) }).httpApi;
    const host = new URL(this.#server).host;
    this.#httpApi = {
      send: (request: RequestContext): Observable<ResponseContext> => new Observable(this.#send(inner, request, host)),
    };
  }

  /**
   * A raw JSON request on the shared limiter and counters. The generated clients serialise bodies
   * through their model classes, which silently drops any field the client's models do not know (a
   * pod-template field newer than client-node, `x-kubernetes-*` keys of a CRD); objects built from
   * user input go through here instead, byte for byte. Errors are ApiExceptions like the generated
   * clients' (`code`, raw `body`).
   */
  async request<T>(method: HttpVerb, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const text = await this.#raw(method, path, 'application/json', body, contentType);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** A GET whose answer is plain text (`pods/log`), on the same limiter and counters. */
  async getText(path: string): Promise<string> {
    return this.#raw('GET', path, 'text/plain, */*');
  }

  async #raw(method: HttpVerb, path: string, accept: string, body?: unknown, contentType = 'application/json'): Promise<string> {
    const ctx = new ClientRequestContext(`${this.#server}${path}`, method);
    await this.#auth.applySecurityAuthentication(ctx);
    ctx.setHeaderParam('Accept', accept);
    if (body !== undefined) {
      ctx.setHeaderParam('Content-Type', contentType);
      ctx.setBody(JSON.stringify(body));
    }
    const response = await this.#httpApi.send(ctx).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode >= 300) {
      throw new ApiException<string>(
        response.httpStatusCode,
        `HTTP ${response.httpStatusCode} for ${method} ${path}`,
        text,
        response.headers,
      );
    }
    return text;
  }

  /** A generated API client (CoreV1Api, CustomObjectsApi, ...) on the shared limiter and counters. */
  api<T>(ctor: ApiConstructor<T>): T {
    const config = createConfiguration({
      baseServer: new ServerConfiguration(this.#server, {}),
      authMethods: { default: this.#auth },
      httpApi: this.#httpApi,
    });
    return new ctor(config);
  }

  async #send(inner: HttpLibrary, request: RequestContext, host: string): Promise<ResponseContext> {
    if (this.#limiter !== undefined) {
      const wait = this.#limiter.when('');
      if (wait > 0) await sleep(wait);
    }
    if (this.#userAgent !== undefined) request.setHeaderParam('User-Agent', this.#userAgent);
    const method: string = request.getHttpMethod();
    const started = performance.now();
    try {
      const response = await inner.send(request).toPromise();
      this.#record(method, String(response.httpStatusCode), host, started);
      return response;
    } catch (err) {
      this.#record(method, '<error>', host, started);
      throw err;
    }
  }

  #record(method: string, code: string, host: string, started: number): void {
    this.requests.record(method, code);
    this.#metrics?.restClientRequests.inc({ code, method, host });
    this.#metrics?.restClientLatency.observe({ verb: method, host }, (performance.now() - started) / 1000);
  }
}

/** The API server's own message of a refused request (its Status body), else the error's text. */
export function apiErrorMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'body' in err && typeof err.body === 'string') {
    try {
      const parsed = JSON.parse(err.body) as { message?: string };
      if (parsed.message !== undefined) return parsed.message;
    } catch {
      // not JSON
    }
  }
  return err instanceof Error ? err.message : String(err);
}
