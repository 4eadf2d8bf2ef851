import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp, type BuildOptions, type Junction } from '../core/app.js';
import { FakeClock } from '../core/clock.js';
import { defaultConfig } from '../core/config/load.js';
import type { JunctionConfig } from '../core/config/schema.js';
import { createMemoryStorage } from '../core/storage/level-storage.js';

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

const tempDirs: string[] = [];

/** A temporary folder removed when the test process exits. */
export function tempDir(prefix = 'junction-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

process.on('exit', () => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

function merge(target: Record<string, any>, source: Record<string, any>): void {
  for (const [k, v] of Object.entries(source)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && target[k] && typeof target[k] === 'object') {
      merge(target[k], v);
    } else {
      target[k] = v;
    }
  }
}

/** The default configuration with temporary folders, no plugins, quiet logs, and `overrides`. */
export function testConfig(overrides: DeepPartial<JunctionConfig> = {}): JunctionConfig {
  const config = defaultConfig();
  config.dataDir = tempDir();
  config.servicesDir = tempDir();
  config.plugins = [];
  config.server.logLevel = 'silent';
  config.sandbox.threads = 1;
  merge(config, overrides as Record<string, any>);
  return config;
}

export interface TestAppOptions extends BuildOptions {
  config?: DeepPartial<JunctionConfig>;
  /** Start the app (without listening) before returning it. Default true. */
  start?: boolean;
}

/** An in-process app on memory storage with a fake clock; stop it in `afterEach`. */
export async function testApp(options: TestAppOptions = {}): Promise<Junction & { clock: FakeClock }> {
  const config = testConfig(options.config);
  const app = await buildApp(config, {
    storage: options.storage ?? createMemoryStorage(),
    clock: options.clock ?? new FakeClock(),
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  if (options.start !== false) await app.start({ listen: false });
  return app as Junction & { clock: FakeClock };
}

/** An access token from the real token endpoint (password grant, the default client). */
export async function passwordToken(app: Junction, username: string, password: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      username,
      password,
      client_id: 'junction',
      client_secret: 'junction',
    }).toString(),
  });
  if (res.statusCode !== 200) throw new Error(`login of ${username} failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}
