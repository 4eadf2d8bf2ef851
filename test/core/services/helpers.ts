import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { buildApp, type Junction } from '../../../core/app.js';
import { FakeClock } from '../../../core/clock.js';
import type { JunctionPlugin } from '../../../core/plugins/types.js';
import type { Sandbox, SandboxHost } from '../../../core/sandbox/types.js';
import type { PackageRegistry } from '../../../core/services/registry.js';
import { createMemoryStorage } from '../../../core/storage/level-storage.js';
import { testConfig, type DeepPartial } from '../../helpers.js';
import type { JunctionConfig } from '../../../core/config/schema.js';

export type ServicesApp = Junction & { clock: FakeClock; services: PackageRegistry };

/** An app (memory storage, fake clock, no watcher unless asked) whose sandbox `makeSandbox` builds. */
export async function servicesApp(options: {
  sandbox?: (host: SandboxHost) => Sandbox;
  config?: DeepPartial<JunctionConfig>;
  plugins?: JunctionPlugin<any>[];
  start?: boolean;
}): Promise<ServicesApp> {
  const config = testConfig({ hotDeploy: { enabled: false }, ...options.config });
  const app = await buildApp(config, {
    storage: createMemoryStorage(),
    clock: new FakeClock(),
    logger: pino({ level: 'silent' }),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    plugins: (options.plugins ?? []).map((plugin) => ({ plugin })),
  });
  if (options.start !== false) await app.start({ listen: false });
  return app as ServicesApp;
}

/** Writes `files` (relative path → text) into `<servicesDir>/<name>/`. */
export function writePackage(servicesDir: string, name: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(servicesDir, name, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

export function removePackage(servicesDir: string, name: string): void {
  rmSync(join(servicesDir, name), { recursive: true, force: true });
}

export function manifest(name: string, version = '1.0.0', aliases = ''): string {
  return `name: ${name}\nversion: "${version}"\n${aliases ? `aliases:\n${aliases}` : ''}`;
}

/** A promise with its resolve function, to hold a call open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
