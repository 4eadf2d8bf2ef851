import { buildApp } from '../app.js';
import type { ConfigFlags } from '../config/load.js';
import { loadForCommand } from './config-file.js';

/** `junction serve`: runs until SIGINT/SIGTERM, then shuts down gracefully and exits 0. */
export async function runServe(file: string | undefined, flags: ConfigFlags): Promise<number> {
  const loaded = loadForCommand(file, flags);
  if (!loaded) return 1;
  const app = await buildApp(loaded.config);
  for (const w of loaded.warnings) app.logger.warn(w);
  try {
    await app.start();
  } catch (err) {
    app.logger.flush?.();
    process.stderr.write(`junction: ${(err as Error).message}\n`);
    return 1;
  }
  // The address, once ready, on stdout too: scripts wait for this line.
  process.stdout.write(`Junction listening on ${app.address}\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      app.logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        process.stderr.write('junction: shutdown timed out\n');
        process.exit(1);
      }, loaded.config.server.shutdownTimeoutMs + 5000);
      force.unref();
      app.stop().then(
        () => resolve(0),
        (err: unknown) => {
          process.stderr.write(`junction: shutdown failed: ${(err as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
