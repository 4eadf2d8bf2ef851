import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import { aliasApp, bearer, tokenOf, type AliasTestApp, type TestUser } from './fixture.js';
import { ORDERS } from './packages.js';

describe('plugins/alias: security', () => {
  let app: AliasTestApp;
  const tokens: Partial<Record<TestUser, string>> = {};
  before(async () => {
    app = await aliasApp({ packages: { orders: ORDERS } });
    for (const user of ['alice', 'sam', 'bob'] as const) tokens[user] = await tokenOf(app, user);
  });
  after(() => app.stop());

  const call = (url: string, user?: TestUser | 'garbage'): Promise<LightMyRequestResponse> =>
    app.inject({
      url,
      headers: user === undefined ? {} : user === 'garbage' ? bearer('x'.repeat(43)) : bearer(tokens[user]!),
    });

  it('a secured alias needs a bearer token: 401 without one or with a bad one', async () => {
    const none = await call('/api/secure/any');
    expect(none.statusCode).to.equal(401);
    expect(none.json().code).to.equal('JCT_UNAUTHORIZED');
    expect(none.headers['www-authenticate']).to.match(/^Bearer realm="junction"/);
    const bad = await call('/api/secure/any', 'garbage');
    expect(bad.statusCode).to.equal(401);
    expect(bad.headers['www-authenticate']).to.contain('error="invalid_token"');
  });

  it('runs a secured alias without runAs as its caller', async () => {
    const res = await call('/api/secure/any', 'bob');
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ username: 'bob', groups: [] });
  });

  it('groups restrict further: 403 for a user outside them', async () => {
    expect((await call('/api/secure/sales', 'sam')).json()).to.deep.equal({
      username: 'sam',
      groups: ['sales'],
    });
    const bob = await call('/api/secure/sales', 'bob');
    expect(bob.statusCode).to.equal(403);
    expect(bob.json().code).to.equal('JCT_FORBIDDEN');
    expect((await call('/api/secure/sales')).statusCode).to.equal(401);
  });

  it('users restrict further: 403 for another user, administrators included', async () => {
    expect((await call('/api/secure/sam', 'sam')).statusCode).to.equal(200);
    expect((await call('/api/secure/sam', 'alice')).statusCode).to.equal(403);
  });

  it('runAs names the user the service sees, on secured and open aliases', async () => {
    const secured = await call('/api/secure/batch', 'bob');
    expect(secured.json()).to.deep.equal({ username: 'batch', groups: ['jobs'] });
    expect((await call('/api/secure/batch')).statusCode).to.equal(401);
    const anonymous = await call('/api/secure/anonymous', 'bob');
    expect(anonymous.json()).to.deep.equal({ username: 'Anonymous', groups: [] });
    const open = await call('/api/open/batch');
    expect(open.json()).to.deep.equal({ username: 'batch', groups: ['jobs'] });
  });

  it('an open alias runs as Anonymous and ignores any token', async () => {
    expect((await call('/api/open/whoami')).json()).to.deep.equal({ username: 'Anonymous', groups: [] });
    expect((await call('/api/open/whoami', 'alice')).json()).to.deep.equal({
      username: 'Anonymous',
      groups: [],
    });
    expect((await call('/api/open/whoami', 'garbage')).statusCode).to.equal(200);
  });

  it('a revoked token is refused at once', async () => {
    const token = await tokenOf(app, 'bob');
    expect((await app.inject({ url: '/api/secure/any', headers: bearer(token) })).statusCode).to.equal(200);
    const revoke = await app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${token}&client_id=junction&client_secret=junction`,
    });
    expect(revoke.statusCode).to.equal(200);
    expect((await app.inject({ url: '/api/secure/any', headers: bearer(token) })).statusCode).to.equal(401);
  });

  it('an expired token is refused', async () => {
    const token = await tokenOf(app, 'sam');
    await app.clock.advance(3601 * 1000);
    const res = await app.inject({ url: '/api/secure/sales', headers: bearer(token) });
    expect(res.statusCode).to.equal(401);
    expect(res.headers['www-authenticate']).to.contain('invalid_token');
  });
});
