import type { Logger } from 'pino';

/**
 * Runs `shutdown` once on SIGTERM or SIGINT and exits 0 when it completes. A second signal, or a
 * shutdown still running after `graceMs`, exits at once with status 1.
 */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>, graceMs = 25_000): void {
  let shuttingDown = false;
  const handle = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    shutdown().then(
      () => {
        logger.info('shut down cleanly');
        logger.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
