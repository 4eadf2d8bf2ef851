import type { LightMyRequestResponse } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Junction } from '../../../core/app.js';
import type { FakeClock } from '../../../core/clock.js';
import type { JunctionConfig, UserEntry } from '../../../core/config/schema.js';
import { hashPassword } from '../../../core/password.js';
import type { JunctionApp, JunctionPlugin } from '../../../core/plugins/types.js';
import type { Storage } from '../../../core/storage/types.js';
import { createAuthPlugin } from '../../../plugins/auth/index.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../../../plugins/auth/types.js';
import { testApp, type DeepPartial } from '../../helpers.js';

export const PASSWORDS = { alice: 'alice-pw-1', bob: 'bob-pw-2' } as const;

let users: UserEntry[] | undefined;

/** alice (administrators, sales) and bob (no group); hashed once per test run (scrypt is slow). */
export async function testUsers(): Promise<UserEntry[]> {
  users ??= [
    { username: 'alice', password: await hashPassword(PASSWORDS.alice), groups: ['administrators', 'sales'] },
    { username: 'bob', password: await hashPassword(PASSWORDS.bob), groups: [] },
  ];
  return users;
}

/** Routes guarded by the verifier, as another plugin would write them. */
export const probePlugin: JunctionPlugin = {
  name: 'probe',
  dependsOn: ['auth'],
  register(app: JunctionApp) {
    const verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
    const me = { type: 'object', properties: { username: { type: 'string' }, groups: { type: 'array' } } };
    app.route({
      method: 'GET',
      url: '/probe/me',
      schema: { response: { 200: me } },
      handler: async (request) => verifier.require(request.headers.authorization),
    });
    app.route({
      method: 'GET',
      url: '/probe/admin',
      schema: { response: { 200: me } },
      handler: async (request) =>
        verifier.require(request.headers.authorization, { groups: ['administrators'] }),
    });
    app.route({
      method: 'GET',
      url: '/probe/optional',
      schema: { response: { 200: me } },
      handler: async (request) =>
        (await verifier.authenticate(request.headers.authorization)) ?? { username: 'Anonymous', groups: [] },
    });
  },
};

export interface AuthAppOptions {
  config?: DeepPartial<JunctionConfig>;
  storage?: Storage;
  clock?: FakeClock;
  logger?: Logger;
  /** Use the configured test users (default) or none (first-start admin). */
  withUsers?: boolean;
  announced?: string[];
  listen?: boolean;
}

export type AuthTestApp = Junction & { clock: FakeClock };

export async function authApp(options: AuthAppOptions = {}): Promise<AuthTestApp> {
  const config: DeepPartial<JunctionConfig> = { ...options.config };
  if (options.withUsers !== false) config.users = await testUsers();
  const announced = options.announced ?? [];
  if (options.listen) config.server = { ...config.server, host: '127.0.0.1', port: 0 };
  const app = await testApp({
    start: false,
    config,
    ...(options.storage ? { storage: options.storage } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    logger: options.logger ?? pino({ level: 'silent' }),
    plugins: [{ plugin: createAuthPlugin({ announce: (t) => announced.push(t) }) }, { plugin: probePlugin }],
  });
  await app.start({ listen: options.listen === true });
  return app;
}

/** A form body; an array value repeats the field. */
export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) params.append(k, one);
  return params.toString();
}

export const CLIENT = { client_id: 'junction', client_secret: 'junction' };

export function post(
  app: Junction,
  url: string,
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    payload: form(fields),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  [key: string]: unknown;
}

export async function login(app: Junction, username: keyof typeof PASSWORDS = 'alice'): Promise<Tokens> {
  const res = await post(app, '/oauth/token', {
    grant_type: 'password',
    username,
    password: PASSWORDS[username],
    ...CLIENT,
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function refresh(app: Junction, refreshToken: string): Promise<LightMyRequestResponse> {
  return post(app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, ...CLIENT });
}

export function probe(
  app: Junction,
  accessToken: string | undefined,
  url = '/probe/me',
): Promise<LightMyRequestResponse> {
  return app.inject({
    url,
    headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` },
  });
}
