// Counters of a Prometheus text exposition (/metrics of our operator, training-operator,
// kube-scheduler) for the benchmarks: sums by one label, e.g. rest_client_requests_total by method.
import https from 'node:https';
import { parseMetrics, type Sample } from '../../test/support/prometheus.ts';

/** Sum of a metric's samples grouped by one label (`''` groups everything). */
export function sumBy(samples: readonly Sample[], name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = label === '' ? 'total' : (s.labels[label] ?? '');
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

export function single(samples: readonly Sample[], name: string): number | undefined {
  return samples.find((s) => s.name === name)?.value;
}

/** GET a /metrics page over http, or https with a bearer token (kube-scheduler's secure port). */
export async function scrape(url: string, opts: { token?: string; timeoutMs?: number } = {}): Promise<Sample[]> {
  // A hard deadline on a referenced timer: the client's own timeouts run on unreferenced timers, so a
  // scrape stuck on a dead connection would otherwise let the benchmark exit with its work unsettled.
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`GET ${url}: no complete answer within ${timeoutMs / 1000} s`));
    }, timeoutMs + 1_000);
  });
  try {
    return await Promise.race([scrapeOnce(url, opts.token, timeoutMs), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function scrapeOnce(url: string, token: string | undefined, timeoutMs: number): Promise<Sample[]> {
  if (url.startsWith('http://')) {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
    return parseMetrics(await res.text());
  }
  // Self-signed serving certificates of the local control plane's components.
  const text = await new Promise<string>((resolve, reject) => {
    const req = https.get(
      url,
      {
        rejectUnauthorized: false,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
        timeout: timeoutMs,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('error', reject);
        res.on('aborted', () => {
          reject(new Error(`GET ${url}: response aborted`));
        });
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`GET ${url}: HTTP ${res.statusCode ?? 0} ${body.slice(0, 200)}`));
          else resolve(body);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
  return parseMetrics(text);
}

/** rest_client_requests_total by method (client-go and our operator use the same name). */
export function requestsByMethod(samples: readonly Sample[]): Record<string, number> {
  return sumBy(samples, 'rest_client_requests_total', 'method');
}

/** Per-key difference `after − before` (counters), dropping zeros. */
export function diffCounts(after: Readonly<Record<string, number>>, before: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

export function total(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
