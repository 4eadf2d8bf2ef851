import { expect } from 'chai';
import { authApp, CLIENT, login, post, probe, refresh, type AuthTestApp } from './fixture.js';

describe('plugins/auth: refresh grant, rotation and reuse detection', () => {
  let app: AuthTestApp;
  beforeEach(async () => {
    app = await authApp();
  });
  afterEach(() => app.stop());

  it('issues a new access token and a new refresh token and retires the old one', async () => {
    const first = await login(app);
    const res = await refresh(app, first.refresh_token);
    expect(res.statusCode, res.body).to.equal(200);
    const second = res.json();
    expect(second.token_type).to.equal('bearer');
    expect(second.access_token).not.to.equal(first.access_token);
    expect(second.refresh_token).not.to.equal(first.refresh_token);
    expect(second.expires_in).to.equal(3600);
    expect(second.scope).to.equal('read');
    expect(second.token_issued_counter).to.equal(2);
    expect((await probe(app, second.access_token)).json().username).to.equal('alice');
    // The next refresh uses the new refresh token.
    const third = await refresh(app, second.refresh_token);
    expect(third.statusCode).to.equal(200);
    expect(third.json().token_issued_counter).to.equal(3);
  });

  it('revokes the whole grant when a retired refresh token is presented again', async () => {
    const first = await login(app);
    const other = await login(app);
    const second = (await refresh(app, first.refresh_token)).json();
    const reuse = await refresh(app, first.refresh_token);
    expect(reuse.statusCode).to.equal(400);
    expect(reuse.json().error).to.equal('invalid_grant');
    // Every token of that grant is dead: the new refresh token, the new and the old access token.
    const afterReuse = await refresh(app, second.refresh_token);
    expect(afterReuse.json().error).to.equal('invalid_grant');
    expect((await probe(app, second.access_token)).statusCode).to.equal(401);
    expect((await probe(app, first.access_token)).statusCode).to.equal(401);
    const metrics = (await app.inject('/metrics')).body;
    expect(metrics).to.contain('junction_auth_grants_total{grant_type="password",outcome="issued"} 2');
    expect(metrics).to.contain('junction_auth_grants_total{grant_type="refresh_token",outcome="reuse"} 1');
    expect(metrics).to.match(/^junction_auth_tokens \d+$/m);
    // Another grant of the same user is untouched.
    expect((await probe(app, other.access_token)).statusCode).to.equal(200);
    expect((await refresh(app, other.refresh_token)).statusCode).to.equal(200);
  });

  it('lets only one of two concurrent refreshes with the same token through', async () => {
    const first = await login(app);
    const [a, b] = await Promise.all([refresh(app, first.refresh_token), refresh(app, first.refresh_token)]);
    expect([a.statusCode, b.statusCode].sort()).to.deep.equal([200, 400]);
    const winner = a.statusCode === 200 ? a.json() : b.json();
    // The loser's presentation is a reuse: the grant, with the winner's tokens, is revoked.
    expect((await probe(app, winner.access_token)).statusCode).to.equal(401);
  });

  it('refuses a refresh token of another client, an access token and garbage', async () => {
    const first = await login(app);
    const foreign = await post(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: 'esb',
    });
    expect(foreign.statusCode).to.equal(400);
    expect(foreign.json().error).to.equal('invalid_grant');
    // The rightful client can still use it.
    const wrongKind = await refresh(app, first.access_token);
    expect(wrongKind.json().error).to.equal('invalid_grant');
    for (const junk of ['x', 'a'.repeat(43), 'not a token at all']) {
      const res = await refresh(app, junk);
      expect(res.statusCode).to.equal(400);
      expect(res.json().error).to.equal('invalid_grant');
    }
    expect((await refresh(app, first.refresh_token)).statusCode).to.equal(200);
  });

  it('expires access tokens and refresh tokens by the clock', async () => {
    const first = await login(app);
    await app.clock.advance(3600_000 - 1);
    expect((await probe(app, first.access_token)).statusCode).to.equal(200);
    await app.clock.advance(1);
    const expired = await probe(app, first.access_token);
    expect(expired.statusCode).to.equal(401);
    expect(expired.headers['www-authenticate']).to.contain('error="invalid_token"');
    // The refresh token lives 12 hours: a refresh still works after the access token died.
    const second = (await refresh(app, first.refresh_token)).json();
    expect((await probe(app, second.access_token)).statusCode).to.equal(200);
    await app.clock.advance(12 * 3600_000 - 1);
    const justInTime = await refresh(app, second.refresh_token);
    expect(justInTime.statusCode).to.equal(200);
    await app.clock.advance(12 * 3600_000);
    const late = await refresh(app, justInTime.json().refresh_token);
    expect(late.statusCode).to.equal(400);
    expect(late.json().error).to.equal('invalid_grant');
  });

  it('lets a refresh narrow the access token scope but never widen it', async () => {
    const first = await login(app);
    const narrowed = await post(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      scope: 'read',
      ...CLIENT,
    });
    expect(narrowed.json().scope).to.equal('read');
    const wider = await post(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: narrowed.json().refresh_token,
      scope: 'read admin',
      ...CLIENT,
    });
    expect(wider.statusCode).to.equal(400);
    expect(wider.json().error).to.equal('invalid_scope');
    // A refused scope does not consume the refresh token.
    expect((await refresh(app, narrowed.json().refresh_token)).statusCode).to.equal(200);
  });
});
