// The demo's dashboard: started with the local cluster's admin kubeconfig so a newcomer can watch the
// workload play out in a browser while the live table runs. A dashboard that fails to start is
// reported and the demo goes on without it (the table and the JCTs do not need it).
import type { KubeConfig } from '@kubernetes/client-node';
import { startDashboard, type Dashboard } from '../../src/dashboard/index.ts';
import type { Logger } from '../../src/runtime/logger.ts';

export interface DemoDashboardOptions {
  readonly enabled: boolean;
  readonly port: number;
}

/** `--dashboard-port N` (0: a free port); `--no-dashboard` turns it off. */
export const DASHBOARD_HELP = `  --dashboard-port N  port of the dashboard on 127.0.0.1 (default 0: a free one)
  --no-dashboard      do not start the dashboard`;

export function parseDashboardOptions(values: { dashboard?: boolean; 'dashboard-port'?: string }): DemoDashboardOptions | string {
  const port = Number(values['dashboard-port'] ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) return `--dashboard-port must be 0..65535, got ${values['dashboard-port']}`;
  return { enabled: values.dashboard !== false, port };
}

export async function startDemoDashboard(
  kubeConfig: KubeConfig,
  logger: Logger,
  opts: DemoDashboardOptions,
): Promise<Dashboard | undefined> {
  if (!opts.enabled) return undefined;
  try {
    const dashboard = await startDashboard({
      kubeConfig,
      logger: logger.child({ component: 'dashboard' }),
      namespaces: [],
      port: opts.port,
    });
    console.log(`Dashboard (watch the jobs, queues, nodes and each job's curve live; it stops with the demo):\n  ${dashboard.url}`);
    return dashboard;
  } catch (err) {
    console.log(`The dashboard did not start (${(err as Error).message}); the demo goes on without it.`);
    return undefined;
  }
}
