import type { PackageFiles } from './fixture.js';

/** The services the alias tests call, in the real sandbox. */
export const ORDERS_CODE = `
export async function get(input, ctx) {
  return { id: input.id, input, user: ctx.user.username };
}
export async function echo(input, ctx) {
  return { input, user: ctx.user };
}
export async function whoami(input, ctx) {
  return ctx.user;
}
export async function text() {
  return 'plain text';
}
export async function nothing() {}
export async function fail(input) {
  if (input.kind === 'plain') throw new Error('plain failure');
  if (input.kind === 'type') return null.missing;
  const err = new Error('failed with ' + input.status);
  err.status = Number(input.status);
  if (input.code) err.code = input.code;
  throw err;
}
`;

export const ORDERS_YAML = `
name: orders
version: 1.0.0
aliases:
  - url: /orders/{id}
    service: api.Orders.get
    method: GET
  - url: /orders/{id}/lines/{line}
    service: api.Orders.echo
  - url: /orders
    service: api.Orders.echo
    method: POST
    parameters: [customer, qty, tag]
  - url: /echo
    service: api.Orders.echo
  - url: /text
    service: api.Orders.text
  - url: /nothing
    service: api.Orders.nothing
  - url: /fail
    service: api.Orders.fail
  - url: /secure/any
    service: api.Orders.whoami
    secured: true
  - url: /secure/sales
    service: api.Orders.whoami
    secured: true
    groups: [sales]
  - url: /secure/sam
    service: api.Orders.whoami
    secured: true
    users: [sam]
  - url: /secure/batch
    service: api.Orders.whoami
    secured: true
    runAs: batch
  - url: /secure/anonymous
    service: api.Orders.whoami
    secured: true
    runAs: Anonymous
  - url: /open/batch
    service: api.Orders.whoami
    runAs: batch
  - url: /open/whoami
    service: api.Orders.whoami
  - url: /tracked/{id}
    service: api.Orders.echo
    logToTracker: true
    documentType: OrderLookup
  - url: /tracked-secure
    service: api.Orders.whoami
    secured: true
    logToTracker: true
  - url: /tracked-fail
    service: api.Orders.fail
    logToTracker: true
`;

export const ORDERS: PackageFiles = { yaml: ORDERS_YAML, code: { 'api/Orders.js': ORDERS_CODE } };

/** A one-alias package serving `url` with a service that names its package. */
export function tinyPackage(name: string, url: string, method?: string, extra = ''): PackageFiles {
  return {
    yaml: `name: ${name}\nversion: 1.0.0\naliases:\n  - url: ${url}\n    service: Tiny.who\n${
      method ? `    method: ${method}\n` : ''
    }${extra}`,
    code: { 'Tiny.js': `export async function who(input, ctx) { return { package: '${name}', input }; }\n` },
  };
}
