// `tfjob-operator dashboard`: serves the read-only dashboard on this machine's loopback interface,
// reading the cluster with the user's kubeconfig, and prints its address (with its access token).
//
//   tfjob-operator dashboard [--port 0] [--kubeconfig F] [--namespace a,b]
import { parseArgs } from 'node:util';
import { startDashboard } from '../dashboard/index.ts';
import { loadKubeConfig } from '../operator/manager.ts';
import { createLogger } from '../runtime/logger.ts';

const USAGE = `usage: tfjob-operator dashboard [--port N] [--kubeconfig FILE] [--namespace a,b] [--open-host 127.0.0.1|localhost|::1]

Serves a read-only web page of the cluster, its queues and TFJobs on this machine only (loopback),
live from watches made with your kubeconfig: what your RBAC does not let you list and watch does not
show. Prints the address to open (it carries an access token). --port 0 (the default) picks a free port.`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '0' },
        kubeconfig: { type: 'string' },
        namespace: { type: 'string', short: 'n', default: '' },
        'open-host': { type: 'string', default: '127.0.0.1' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    console.error(`tfjob-operator dashboard: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`tfjob-operator dashboard: --port must be 0..65535, got ${values.port}`);
    return 2;
  }
  const host = values['open-host'];
  if (!LOOPBACK.has(host)) {
    console.error(
      `tfjob-operator dashboard: --open-host must be a loopback address (${[...LOOPBACK].join(', ')}); the page shows what your credentials may read`,
    );
    return 2;
  }
  const logger = createLogger({ name: 'tfjob-dashboard', level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  let dashboard;
  try {
    dashboard = await startDashboard({
      kubeConfig: loadKubeConfig(values.kubeconfig ?? ''),
      logger,
      namespaces: values.namespace.split(',').filter((n) => n !== ''),
      host,
      port,
    });
  } catch (err) {
    console.error(`tfjob-operator dashboard: ${(err as Error).message}`);
    return 1;
  }
  for (const [kind, a] of Object.entries(dashboard.access)) {
    if (a.scope === 'denied') console.error(`note: ${kind}: ${a.why}`);
    else if (a.scope === 'namespaces') console.error(`note: ${kind}: only namespaces ${a.namespaces.join(', ')}`);
  }
  console.log(`TFJob dashboard: ${dashboard.url}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await dashboard.stop();
  return 0;
}
