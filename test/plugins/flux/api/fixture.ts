import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Junction } from '../../../../core/app.js';
import type { UserEntry } from '../../../../core/config/schema.js';
import { hashPassword } from '../../../../core/password.js';
import { createAuthPlugin } from '../../../../plugins/auth/index.js';
import { createEngineHost, createFluxPlugin } from '../../../../plugins/flux/index.js';
import { passwordToken, testApp, type TestAppOptions } from '../../../helpers.js';

/** The package every API test deploys: `orders`, three workflows without code. */
export const WORKFLOWS: Record<string, string> = {
  'approval/OrderApproval': `
comment: Approves an order
triggers: [order.created]
states:
  - name: await
    transitions:
      - { event: approve, to: approved }
      - { event: reject, to: rejected }
  - name: approved
  - name: rejected
`,
  'approval/Reminder': `
states:
  - name: remind
    transitions:
      - { after: PT1H, to: done }
      - { event: $else, to: remind }
  - name: done
`,
  'secure/Payroll': `
access: { groups: [finance] }
states:
  - name: wait
    transitions:
      - { event: pay, to: paid }
  - name: paid
`,
};

/** Writes a package: `files` maps a workflow path (`a/B`) or a file path (`code/x.js`) to its text. */
function writePackage(servicesDir: string, name: string, files: Record<string, string>): void {
  const dir = join(servicesDir, name);
  writeFileSync(join(mkdir(dir), 'package.yaml'), `name: ${name}\nversion: 1.0.0\n`);
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path.includes('.') ? path : join('flux', `${path}.flux.yaml`));
    mkdir(dirname(file));
    writeFileSync(file, text);
  }
}

function mkdir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

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
  return passwordToken(app, username, PASSWORDS[username]);
}

export interface FluxTestOptions extends TestAppOptions {
  auth?: boolean;
  /** More packages to deploy beside `orders`: name → workflow path (or file path) → text. */
  packages?: Record<string, Record<string, string>>;
}

/** An app with the real flux plugin, the `orders` package deployed, and (by default) auth. */
export async function fluxApp(options: FluxTestOptions = {}) {
  const flux = createFluxPlugin(createEngineHost);
  const auth = options.auth === false ? [] : [{ plugin: createAuthPlugin({ announce: () => {} }) }];
  const app = await testApp({
    ...options,
    config: { ...options.config, users: await testUsers(), hotDeploy: { enabled: false } },
    plugins: [...auth, { plugin: flux }],
    start: false,
  });
  for (const [name, workflows] of Object.entries({ orders: WORKFLOWS, ...options.packages })) {
    writePackage(app.config.servicesDir, name, workflows);
  }
  await app.start({ listen: false });
  if (options.auth === false) return { app, tokens: { fiona: 'unverifiable', sam: 'unverifiable' } };
  return { app, tokens: { fiona: await login(app, 'fiona'), sam: await login(app, 'sam') } };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function expectError(res: LightMyRequestResponse, status: number, code: string): { message: string } {
  const body = res.json() as { message: string; code: string };
  if (res.statusCode !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  }
  return body;
}
