import type { LightMyRequestResponse } from 'fastify';
import { JunctionError } from '../../../../core/errors.js';
import type { JunctionPlugin } from '../../../../core/plugins/types.js';
import type { UserRef } from '../../../../core/services/types.js';
import { AUTH_VERIFIER, type AccessRule, type BearerVerifier } from '../../../../plugins/auth/types.js';
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

export const USERS: Record<string, UserRef> = {
  'token-fiona': { username: 'fiona', groups: ['finance'] },
  'token-sam': { username: 'sam', groups: ['sales'] },
};

/** A stand-in for the auth plugin's verifier: fixed tokens, same rules and errors. */
export const testAuthPlugin: JunctionPlugin = {
  name: 'auth',
  register(app) {
    const allows = (user: UserRef, rule: AccessRule) =>
      (rule.users === undefined || rule.users.includes(user.username)) &&
      (rule.groups === undefined || rule.groups.some((g) => user.groups.includes(g)));
    const verifier: BearerVerifier = {
      async authenticate(header) {
        if (header === undefined) return undefined;
        const user = USERS[header.replace(/^Bearer /, '')];
        if (!user || !header.startsWith('Bearer '))
          throw new JunctionError('JCT_AUTH_INVALID_TOKEN', 401, 'the bearer token is invalid', {
            headers: { 'WWW-Authenticate': 'Bearer realm="junction", error="invalid_token"' },
          });
        return user;
      },
      async require(header, rule) {
        const user = await this.authenticate(header);
        if (!user) throw new JunctionError('JCT_UNAUTHORIZED', 401, 'token required');
        if (rule && !allows(user, rule)) throw new JunctionError('JCT_FORBIDDEN', 403, 'denied');
        return user;
      },
      allows,
      user: () => undefined,
    };
    app.container.register(AUTH_VERIFIER, { useValue: verifier });
  },
};

export interface FluxTestOptions extends TestAppOptions {
  auth?: boolean;
}

/** An app with the flux plugin over a MemoryFluxEngine, and (by default) a verifier. */
export async function fluxApp(options: FluxTestOptions = {}) {
  const engine = new MemoryFluxEngine(WORKFLOWS);
  const flux = createFluxPlugin(() => ({ engine, start: async () => {}, stop: async () => {} }));
  const plugins =
    options.auth === false ? [{ plugin: flux }] : [{ plugin: testAuthPlugin }, { plugin: flux }];
  const app = await testApp({ ...options, plugins });
  return { app, engine };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function expectError(res: LightMyRequestResponse, status: number, code: string): { message: string } {
  const body = res.json() as { message: string; code: string };
  if (res.statusCode !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  }
  return body;
}
