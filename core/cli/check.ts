import { pino } from 'pino';
import { buildApp } from '../app.js';
import type { ConfigFlags } from '../config/load.js';
import { createMemoryStorage } from '../storage/level-storage.js';
import { loadForCommand } from './config-file.js';

/**
 * `junction check`: validates the configuration, loads the plugins and every package (with its
 * workflows) without serving, and lists every problem. Exit 0 when all is well, 1 otherwise.
 */
export async function runCheck(file: string | undefined, flags: ConfigFlags): Promise<number> {
  const loaded = loadForCommand(file, flags);
  if (!loaded) return 1;
  const app = await buildApp(loaded.config, {
    storage: createMemoryStorage(),
    logger: pino({ level: 'silent' }),
  });
  let problems: string[];
  try {
    problems = await app.check();
  } catch (err) {
    problems = [(err as Error).message];
  }
  for (const p of problems) process.stderr.write(`junction: ${p}\n`);
  if (problems.length === 0) process.stdout.write('configuration, packages and workflows are valid\n');
  return problems.length === 0 ? 0 : 1;
}
