import { expect } from 'chai';
import { authApp, CLIENT, login, post, probe, refresh, type AuthTestApp } from './fixture.js';

describe('plugins/auth: POST /oauth/revoke and /oauth/introspect', () => {
  let app: AuthTestApp;
  beforeEach(async () => {
    app = await authApp();
  });
  afterEach(() => app.stop());

  it('revokes an access token at once', async () => {
    const t = await login(app);
    // Used first, so the verifier has seen (and memoised) it.
    expect((await probe(app, t.access_token)).statusCode).to.equal(200);
    const res = await post(app, '/oauth/revoke', { token: t.access_token, ...CLIENT });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    const after = await probe(app, t.access_token);
    expect(after.statusCode).to.equal(401);
    expect(after.json().code).to.equal('JCT_AUTH_INVALID_TOKEN');
    // Only that token: the refresh token of the grant still works.
    expect((await refresh(app, t.refresh_token)).statusCode).to.equal(200);
  });

  it('revoking a refresh token revokes every access token of the same grant', async () => {
    const t = await login(app);
    const next = (await refresh(app, t.refresh_token)).json();
    const unrelated = await login(app);
    const res = await post(app, '/oauth/revoke', {
      token: next.refresh_token,
      token_type_hint: 'refresh_token',
      ...CLIENT,
    });
    expect(res.statusCode).to.equal(200);
    expect((await probe(app, t.access_token)).statusCode).to.equal(401);
    expect((await probe(app, next.access_token)).statusCode).to.equal(401);
    expect((await refresh(app, next.refresh_token)).json().error).to.equal('invalid_grant');
    expect((await probe(app, unrelated.access_token)).statusCode).to.equal(200);
  });

  it('answers 200 for an unknown token, a wrong hint and garbage', async () => {
    const t = await login(app);
    for (const token of ['nonsense', 'A'.repeat(43)]) {
      expect((await post(app, '/oauth/revoke', { token, ...CLIENT })).statusCode).to.equal(200);
    }
    // A hint is only a hint.
    const hinted = await post(app, '/oauth/revoke', {
      token: t.access_token,
      token_type_hint: 'refresh_token',
      ...CLIENT,
    });
    expect(hinted.statusCode).to.equal(200);
    expect((await probe(app, t.access_token)).statusCode).to.equal(401);
  });

  it('needs client authentication and a token, and refuses another client’s token', async () => {
    const t = await login(app);
    const noClient = await post(app, '/oauth/revoke', { token: t.access_token });
    expect(noClient.statusCode).to.equal(401);
    expect(noClient.json().error).to.equal('invalid_client');
    expect(noClient.headers['www-authenticate']).to.match(/^Basic/);
    const noToken = await post(app, '/oauth/revoke', { ...CLIENT });
    expect(noToken.statusCode).to.equal(400);
    expect(noToken.json().error).to.equal('invalid_request');
    const repeated = await post(app, '/oauth/revoke', {
      token: [t.access_token, t.refresh_token],
      ...CLIENT,
    });
    expect(repeated.json().error).to.equal('invalid_request');
    const foreign = await post(app, '/oauth/revoke', { token: t.access_token, client_id: 'esb' });
    expect(foreign.statusCode).to.equal(400);
    expect(foreign.json().error).to.equal('unauthorized_client');
    expect((await probe(app, t.access_token)).statusCode).to.equal(200);
  });

  it('introspects live tokens and reports dead ones inactive', async () => {
    const t = await login(app);
    const access = await post(app, '/oauth/introspect', { token: t.access_token, ...CLIENT });
    expect(access.statusCode).to.equal(200);
    expect(access.headers['cache-control']).to.equal('no-store');
    const now = Math.floor(app.clock.now() / 1000);
    expect(access.json()).to.deep.equal({
      active: true,
      scope: 'read',
      client_id: 'junction',
      username: 'alice',
      sub: 'alice',
      token_type: 'bearer',
      iat: now,
      exp: now + 3600,
    });
    const refreshInfo = (await post(app, '/oauth/introspect', { token: t.refresh_token, ...CLIENT })).json();
    expect(refreshInfo.active).to.equal(true);
    expect(refreshInfo.exp).to.equal(now + 43200);
    for (const token of ['garbage', 'B'.repeat(43)]) {
      expect((await post(app, '/oauth/introspect', { token, ...CLIENT })).json()).to.deep.equal({
        active: false,
      });
    }
    await refresh(app, t.refresh_token);
    expect(
      (await post(app, '/oauth/introspect', { token: t.refresh_token, ...CLIENT })).json().active,
    ).to.equal(false);
    await app.clock.advance(3600_000);
    expect(
      (await post(app, '/oauth/introspect', { token: t.access_token, ...CLIENT })).json().active,
    ).to.equal(false);
    const unauthenticated = await post(app, '/oauth/introspect', {
      token: t.access_token,
      client_id: 'junction',
    });
    expect(unauthenticated.statusCode).to.equal(401);
  });
});
