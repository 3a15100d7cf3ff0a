// The dashboard's HTTP server: static files of the page, a JSON snapshot, one job's detail, and a
// Server-Sent Events stream that says "something changed" (the page then fetches what it shows).
// It listens on loopback only and asks for a random token (in the URL it prints, then a cookie):
// another user of the same machine cannot read through it what this user's RBAC allows.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { VENDOR_FILES, WEB_ROOT, webFile } from './assets.ts';

export interface DashboardRoutes {
  snapshot(): unknown;
  job(namespace: string, name: string): unknown;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

const SERVED_TYPES: ReadonlySet<string> = new Set(Object.keys(TYPES));
const HEARTBEAT_MS = 15_000;

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Cookies are shared by every port of a host: the name carries the port, so two dashboards coexist. */
function cookieName(port: number): string {
  return `tfjob_dashboard_${port}`;
}

function cookieToken(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === name) return v;
  }
  return undefined;
}

export class DashboardServer {
  readonly token = randomBytes(18).toString('base64url');
  readonly #server: Server;
  readonly #streams = new Set<ServerResponse>();
  #version = 0;
  #pending: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #port = 0;

  readonly routes: DashboardRoutes;
  /** Coalesces bursts of changes (a scheduling pass touches many objects) into one message. */
  readonly coalesceMs: number;

  constructor(routes: DashboardRoutes, coalesceMs = 250) {
    this.routes = routes;
    this.coalesceMs = coalesceMs;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async listen(host: string, port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        resolve();
      });
    });
    const addr = this.#server.address();
    this.#port = typeof addr === 'object' && addr !== null ? addr.port : port;
    // Started here, not in the constructor: a server closed and listening again keeps it.
    clearInterval(this.#heartbeat);
    this.#heartbeat = setInterval(() => {
      for (const s of this.#streams) s.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
    return `http://${host}:${this.#port}/?token=${this.token}`;
  }

  /** Something the page shows changed: tell every open stream (at most once per `coalesceMs`). */
  changed(): void {
    this.#version += 1;
    if (this.#pending !== undefined) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      for (const s of this.#streams) s.write(`data: ${this.#version}\n\n`);
    }, this.coalesceMs);
  }

  /** Closes every open stream (the pages reconnect): what a network blip or a proxy timeout does. */
  dropStreams(): void {
    for (const s of this.#streams) s.destroy();
    this.#streams.clear();
  }

  get streams(): number {
    return this.#streams.size;
  }

  async close(): Promise<void> {
    clearInterval(this.#heartbeat);
    if (this.#pending !== undefined) clearTimeout(this.#pending);
    this.dropStreams();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.#server.close(() => {
        resolve();
      }),
    );
  }

  #hostAllowed(req: IncomingMessage): boolean {
    // DNS rebinding: a page of another site that resolves its name to 127.0.0.1 sends its own Host.
    const host = req.headers.host ?? '';
    return [`127.0.0.1:${this.#port}`, `localhost:${this.#port}`, `[::1]:${this.#port}`].includes(host);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (!this.#hostAllowed(req)) {
        this.#send(res, 403, 'text/plain', 'forbidden host');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const given = url.searchParams.get('token');
      if (given !== null && sameToken(given, this.token)) {
        res.writeHead(302, { location: '/', 'set-cookie': `${cookieName(this.#port)}=${this.token}; HttpOnly; SameSite=Strict; Path=/` });
        res.end();
        return;
      }
      const cookie = cookieToken(req, cookieName(this.#port));
      if (cookie === undefined || !sameToken(cookie, this.token)) {
        this.#send(res, 401, 'text/plain', 'open the address the dashboard printed (it carries the token)');
        return;
      }
      await this.#route(url.pathname, req, res);
    } catch (err) {
      if (!res.headersSent) this.#send(res, 500, 'text/plain', (err as Error).message);
      else res.destroy();
    }
  }

  async #route(pathname: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (pathname === '/api/snapshot') {
      this.#json(res, this.routes.snapshot());
      return;
    }
    if (pathname === '/api/stream') {
      this.#stream(req, res);
      return;
    }
    const job = /^\/api\/job\/([^/]+)\/([^/]+)$/.exec(pathname);
    if (job !== null) {
      const detail = this.routes.job(decodeURIComponent(job[1]!), decodeURIComponent(job[2]!));
      if (detail === undefined) this.#send(res, 404, 'application/json', '{"error":"no such TFJob (or not visible to you)"}');
      else this.#json(res, detail);
      return;
    }
    const file = VENDOR_FILES[pathname] ?? webFile(WEB_ROOT, pathname, SERVED_TYPES);
    if (file === undefined) {
      this.#send(res, 404, 'text/plain', 'not found');
      return;
    }
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) {
      this.#send(res, 404, 'text/plain', 'not found');
      return;
    }
    this.#send(res, 200, TYPES[path.extname(file)] ?? 'application/octet-stream', body);
  }

  #stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    // `retry`: how soon the browser reconnects after the stream drops.
    res.write(`retry: 1000\ndata: ${this.#version}\n\n`);
    this.#streams.add(res);
    req.on('close', () => this.#streams.delete(res));
  }

  #json(res: ServerResponse, body: unknown): void {
    this.#send(res, 200, 'application/json', JSON.stringify(body));
  }

  #send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(body);
  }
}
