// `tfjob-operator run`: the operator process.
import { ConfigError, helpText, loadConfig } from '../operator/config.ts';
import { Operator } from '../operator/manager.ts';
import { createLogger } from '../runtime/logger.ts';

export async function main(argv: string[]): Promise<number> {
  let loaded;
  try {
    loaded = loadConfig({ argv, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tfjob-operator: ${err.message}`);
      return 2;
    }
    throw err;
  }
  if (loaded.help) {
    console.log(helpText());
    return 0;
  }
  const logger = createLogger({ level: loaded.config.logLevel });
  const operator = new Operator(loaded.config, {
    logger,
    onLeadershipLost: () => {
      logger.error('Leadership lost; exiting so a restart rejoins as a standby');
      process.exit(1);
    },
  });
  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'Received signal');
    stopping ??= operator.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'Graceful shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => {
    shutdown('SIGTERM');
  });
  process.on('SIGINT', () => {
    shutdown('SIGINT');
  });
  try {
    await operator.start();
  } catch (err) {
    // E.g. a port in use: report it as a JSON log line (log pipelines drop a bare stack trace) and
    // exit non-zero so the kubelet restarts us.
    logger.fatal({ err }, 'Failed to start');
    process.exit(1);
  }
  await new Promise(() => undefined);
  return 0;
}
