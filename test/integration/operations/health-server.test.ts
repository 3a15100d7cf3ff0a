// The probe and metrics server listens where the Deployment's kubelet and Prometheus will connect:
// `:port` means every interface, IPv6 included (as Go's `:8081` does for controller-runtime), so
// probes work on IPv6-only and IPv6-primary clusters; `host:port` and `[ipv6]:port` bind just that.
import os from 'node:os';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/runtime/logger.ts';
import { HealthServer, parseAddress } from '../../../src/runtime/health.ts';

/** Whether this machine has an IPv6 loopback; without one, nothing can listen on or reach `::1`. */
const hasIpv6 = Object.values(os.networkInterfaces())
  .flat()
  .some((i) => i?.address === '::1');

async function reachable(host: string, port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/healthz`);
    return res.status === 200;
  } catch {
    return false;
  }
}

describe('HealthServer listen addresses', () => {
  const servers: HealthServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  const serve = async (address: string) => {
    const s = new HealthServer({ address, registry: new Registry(), healthChecks: { ping: () => ({ ok: true }) }, logger: silentLogger() });
    servers.push(s);
    return s.listen();
  };

  it('parses host:port, [ipv6]:port and :port', () => {
    expect(parseAddress(':8081')).toEqual({ host: undefined, port: 8081 });
    expect(parseAddress('8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseAddress('127.0.0.1:9000')).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(parseAddress('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(() => parseAddress(':http')).toThrow(/invalid listen address/);
  });

  it(':port serves IPv4 and (where the host has it) IPv6', async () => {
    const port = await serve(':0');
    expect(await reachable('127.0.0.1', port)).toBe(true);
    expect(await reachable('::1', port)).toBe(hasIpv6);
  });

  it('a host binds only that address', async () => {
    const v4 = await serve('127.0.0.1:0');
    expect(await reachable('127.0.0.1', v4)).toBe(true);
    expect(await reachable('::1', v4)).toBe(false);
    if (hasIpv6) {
      const v6 = await serve('[::1]:0');
      expect(await reachable('::1', v6)).toBe(true);
      expect(await reachable('127.0.0.1', v6)).toBe(false);
    }
  });
});
