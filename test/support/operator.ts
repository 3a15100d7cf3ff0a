// Runs the operator in-process against the shared test cluster, scoped to one namespace so test
// files cannot see each other's jobs.
import { loadConfig } from '../../src/operator/config.ts';
import { Operator, type OperatorOptions } from '../../src/operator/manager.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { adminKubeConfig } from './kube.ts';

export async function startOperator(namespace: string, flags: readonly string[] = [], opts: OperatorOptions = {}): Promise<Operator> {
  const { config } = loadConfig({
    argv: ['--namespace', namespace, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', ...flags],
    env: {},
  });
  const operator = new Operator(config, {
    kubeConfig: adminKubeConfig(),
    // TEST_LOG_LEVEL=debug shows the operator's logs while debugging a test.
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', destination: process.stderr }),
    ...opts,
  });
  await operator.start();
  return operator;
}
