import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigLoadError, loadConfig, type ConfigFlags, type LoadedConfig } from '../config/load.js';

/**
 * Loads the configuration for a command: `--config F`, else `./config.yaml` when present, else
 * the embedded defaults. Prints every problem on its own line and returns undefined on failure.
 */
export function loadForCommand(file: string | undefined, flags: ConfigFlags): LoadedConfig | undefined {
  const chosen = file ?? (existsSync(resolve('config.yaml')) ? 'config.yaml' : undefined);
  try {
    return loadConfig({ ...(chosen === undefined ? {} : { file: chosen }), flags });
  } catch (err) {
    if (err instanceof ConfigLoadError) {
      for (const p of err.problems) process.stderr.write(`junction: ${p}\n`);
      return undefined;
    }
    throw err;
  }
}
