/**
 * A real Junction app for the flux benchmark: LevelDB in a temp folder, the real package registry
 * deploying the `bench` package, the flux plugin with its real engine, which the benchmark then
 * drives in-process.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp, type Junction } from '../../core/app.js';
import { defaultConfig } from '../../core/config/load.js';
import type { JunctionConfig } from '../../core/config/schema.js';
import type { FluxEngineImpl } from '../../plugins/flux/engine/engine.js';
import { createEngineHost, createFluxPlugin } from '../../plugins/flux/index.js';

const WORKFLOWS: Record<string, string> = {
  // Waits for events forever: every `next` is one transition.
  PingPong: `
states:
  - name: ping
    transitions:
      - { event: next, to: pong }
  - name: pong
    transitions:
      - { event: next, to: ping }
`,
  // Moves on by itself two seconds after it started.
  Timer: `
states:
  - name: wait
    transitions:
      - { after: PT2S, to: fired }
      - { event: cancel, to: fired }
  - name: fired
`,
};

export interface BenchFolders {
  root: string;
  dataDir: string;
  servicesDir: string;
}

export function writeBenchPackage(root: string): BenchFolders {
  const folders = { root, dataDir: join(root, 'data'), servicesDir: join(root, 'services') };
  const dir = join(folders.servicesDir, 'bench');
  mkdirSync(join(dir, 'flux', 'bench'), { recursive: true });
  writeFileSync(join(dir, 'package.yaml'), 'name: bench\nversion: 1.0.0\n');
  for (const [name, text] of Object.entries(WORKFLOWS)) {
    writeFileSync(join(dir, 'flux', 'bench', `${name}.flux.yaml`), text);
  }
  return folders;
}

export function benchConfig(folders: BenchFolders): JunctionConfig {
  const config = defaultConfig();
  config.dataDir = folders.dataDir;
  config.servicesDir = folders.servicesDir;
  config.plugins = [];
  config.server.logLevel = 'error';
  config.server.port = 0;
  config.hotDeploy.enabled = false;
  config.sandbox.threads = 1;
  return config;
}

export interface BenchApp {
  app: Junction;
  engine: FluxEngineImpl;
  /** Starts the engine when the app was started with `engineStart: 'manual'`. */
  startEngine(): Promise<void>;
}

/**
 * Builds and starts an app on `folders`. With `engineStart: 'manual'` everything starts but the
 * engine (recovery, timers), so a caller can measure the heap before and after it.
 */
export async function startBenchApp(
  folders: BenchFolders,
  options: { engineStart?: 'auto' | 'manual'; listen?: boolean; timerHorizonMs?: number } = {},
): Promise<BenchApp> {
  let engine: FluxEngineImpl | undefined;
  const manual = options.engineStart === 'manual';
  const plugin = createFluxPlugin((app) => {
    const host = createEngineHost(
      app,
      options.timerHorizonMs === undefined ? {} : { timerHorizonMs: options.timerHorizonMs },
    );
    engine = host.engine as FluxEngineImpl;
    return manual ? { ...host, start: async () => {} } : host;
  });
  const app = await buildApp(benchConfig(folders), { plugins: [{ plugin }] });
  await app.start({ listen: options.listen ?? false });
  return { app, engine: engine!, startEngine: () => engine!.start() };
}
