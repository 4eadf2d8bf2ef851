import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Junction } from '../../../core/app.js';
import type { FakeClock } from '../../../core/clock.js';
import type { JunctionConfig, UserEntry } from '../../../core/config/schema.js';
import { hashPassword } from '../../../core/password.js';
import type { PackageRegistry } from '../../../core/services/registry.js';
import type { Storage } from '../../../core/storage/types.js';
import { createAliasPlugin } from '../../../plugins/alias/index.js';
import { createAuthPlugin } from '../../../plugins/auth/index.js';
import {
  createTrackerPlugin,
  type TrackerPlugin,
  type TrackerOptions,
} from '../../../plugins/tracker/index.js';
import { passwordToken, testApp, testConfig, type DeepPartial } from '../../helpers.js';

/** Users of the alias and tracker tests: an administrator, a sales user, one without groups, a batch user. */
export const PASSWORDS = {
  alice: 'alice-pw-1',
  sam: 'sam-pw-2',
  bob: 'bob-pw-3',
  batch: 'batch-pw-4',
} as const;
export type TestUser = keyof typeof PASSWORDS;
const GROUPS: Record<TestUser, string[]> = {
  alice: ['administrators'],
  sam: ['sales'],
  bob: [],
  batch: ['jobs'],
};

let users: Promise<UserEntry[]> | undefined;

/** Hashed once per test run (scrypt is slow on purpose). */
export function testUsers(): Promise<UserEntry[]> {
  users ??= Promise.all(
    (Object.keys(PASSWORDS) as TestUser[]).map(async (username) => ({
      username,
      password: await hashPassword(PASSWORDS[username]),
      groups: GROUPS[username],
    })),
  );
  return users;
}

/** A package: `code` maps a path under `code/` to an ES module's source. */
export interface PackageFiles {
  yaml: string;
  code?: Record<string, string>;
}

/** Writes (or rewrites) a package folder in `servicesDir`. */
export function writePackage(servicesDir: string, name: string, files: PackageFiles): void {
  const dir = join(servicesDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.yaml'), files.yaml);
  for (const [path, source] of Object.entries(files.code ?? {})) {
    mkdirSync(dirname(join(dir, 'code', path)), { recursive: true });
    writeFileSync(join(dir, 'code', path), source);
  }
}

export interface AliasAppOptions {
  packages?: Record<string, PackageFiles>;
  config?: DeepPartial<JunctionConfig>;
  storage?: Storage;
  clock?: FakeClock;
  tracker?: false | TrackerOptions;
  logger?: Logger;
}

export type AliasTestApp = Junction & {
  clock: FakeClock;
  tracker: TrackerPlugin | undefined;
  /** Redeploys what changed in servicesDir now (what the folder watcher triggers). */
  rescan(): Promise<void>;
};

/**
 * auth + alias + tracker on memory storage with a fake clock, the real package registry and
 * sandbox, and the packages given written into a temporary servicesDir. The folder watcher is
 * off: tests call `rescan()` after changing a package, deterministically.
 */
export async function aliasApp(options: AliasAppOptions = {}): Promise<AliasTestApp> {
  const servicesDir = testConfig().servicesDir;
  for (const [name, files] of Object.entries(options.packages ?? {})) writePackage(servicesDir, name, files);
  const tracker = options.tracker === false ? undefined : createTrackerPlugin();
  const app = await testApp({
    config: {
      users: await testUsers(),
      servicesDir,
      hotDeploy: { enabled: false },
      ...options.config,
    } as DeepPartial<JunctionConfig>,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.storage ? { storage: options.storage } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    plugins: [
      { plugin: createAuthPlugin({ announce: () => {} }) },
      { plugin: createAliasPlugin() },
      ...(tracker ? [{ plugin: tracker, options: (options.tracker || {}) as Record<string, unknown> }] : []),
    ],
  });
  return Object.assign(app, {
    tracker,
    rescan: () => (app.services as PackageRegistry).rescan(),
  }) as AliasTestApp;
}

/** An access token of a test user, from the real token endpoint. */
export async function tokenOf(app: Junction, username: TestUser): Promise<string> {
  return passwordToken(app, username, PASSWORDS[username]);
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
