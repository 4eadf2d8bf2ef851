import type { LightMyRequestResponse } from 'fastify';
import type { Junction } from '../../../../core/app.js';
import type { UserEntry } from '../../../../core/config/schema.js';
import { hashPassword } from '../../../../core/password.js';
import { createAuthPlugin } from '../../../../plugins/auth/index.js';
import { createFluxPlugin } from '../../../../plugins/flux/index.js';
import { testApp, type TestAppOptions } from '../../../helpers.js';
import { MemoryFluxEngine, type TestWorkflow } from './memory-engine.js';

/** The workflows every API test uses. */
export const WORKFLOWS: TestWorkflow[] = [
  {
    packageName: 'orders',
    fluxName: 'approval.OrderApproval',
    comment: 'Approves an order',
    triggers: ['order.created'],
    states: [
      {
        name: 'await',
        transitions: [
          { event: 'approve', to: 'approved' },
          { event: 'reject', to: 'rejected' },
        ],
      },
      { name: 'approved' },
      { name: 'rejected' },
    ],
  },
  {
    packageName: 'orders',
    fluxName: 'approval.Reminder',
    states: [
      {
        name: 'remind',
        transitions: [
          { after: 'PT1H', to: 'done' },
          { event: '$else', to: 'remind' },
        ],
      },
      { name: 'done' },
    ],
  },
  {
    packageName: 'orders',
    fluxName: 'secure.Payroll',
    access: { groups: ['finance'] },
    states: [{ name: 'wait', transitions: [{ event: 'pay', to: 'paid' }] }, { name: 'paid' }],
  },
];

const PASSWORDS = { fiona: 'fiona-pw', sam: 'sam-pw' } as const;
let users: UserEntry[] | undefined;

/** fiona (finance) and sam (sales); hashed once per run (scrypt is slow). */
async function testUsers(): Promise<UserEntry[]> {
  users ??= [
    { username: 'fiona', password: await hashPassword(PASSWORDS.fiona), groups: ['finance'] },
    { username: 'sam', password: await hashPassword(PASSWORDS.sam), groups: ['sales'] },
  ];
  return users;
}

/** An access token of `username` from the real token endpoint. */
export async function login(app: Junction, username: keyof typeof PASSWORDS): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      username,
      password: PASSWORDS[username],
      client_id: 'junction',
      client_secret: 'junction',
    }).toString(),
  });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

export interface FluxTestOptions extends TestAppOptions {
  auth?: boolean;
}

/** An app with the flux plugin over a MemoryFluxEngine and (by default) the auth plugin. */
export async function fluxApp(options: FluxTestOptions = {}) {
  const engine = new MemoryFluxEngine(WORKFLOWS);
  const flux = createFluxPlugin(() => ({ engine, start: async () => {}, stop: async () => {} }));
  if (options.auth === false) {
    const app = await testApp({ ...options, plugins: [{ plugin: flux }] });
    return { app, engine, tokens: { fiona: 'unverifiable', sam: 'unverifiable' } };
  }
  const auth = createAuthPlugin({ announce: () => {} });
  const config = { ...options.config, users: await testUsers() };
  const app = await testApp({ ...options, config, plugins: [{ plugin: auth }, { plugin: flux }] });
  return { app, engine, tokens: { fiona: await login(app, 'fiona'), sam: await login(app, 'sam') } };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function expectError(res: LightMyRequestResponse, status: number, code: string): { message: string } {
  const body = res.json() as { message: string; code: string };
  if (res.statusCode !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  }
  return body;
}
