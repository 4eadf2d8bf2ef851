import { expect } from 'chai';
import { createAuthPlugin } from '../../../plugins/auth/index.js';
import { testApp } from '../../helpers.js';
import type { LightMyRequestResponse } from 'fastify';
import { authApp, CLIENT, type AuthTestApp, login, PASSWORDS, post, probe } from './fixture.js';

function expectOAuthError(res: LightMyRequestResponse, status: number, error: string): void {
  expect(res.statusCode, res.body).to.equal(status);
  const body = res.json();
  expect(body.error).to.equal(error);
  expect(body.error_description).to.be.a('string').and.not.empty;
  expect(res.headers['cache-control']).to.equal('no-store');
  expect(res.headers['pragma']).to.equal('no-cache');
}

const basic = (id: string, secret: string) =>
  'Basic ' +
  Buffer.from(
    `${encodeURIComponent(id).replace(/%20/g, '+')}:${encodeURIComponent(secret).replace(/%20/g, '+')}`,
  ).toString('base64');

describe('plugins/auth: POST /oauth/token', () => {
  let app: AuthTestApp;
  afterEach(() => app?.stop());

  describe('with the default clients', () => {
    beforeEach(async () => {
      app = await authApp();
    });

    it('answers the password grant with the seed fields', async () => {
      const res = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORDS.alice,
        ...CLIENT,
      });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['cache-control']).to.equal('no-store');
      expect(res.headers['pragma']).to.equal('no-cache');
      const body = res.json();
      expect(Object.keys(body).sort()).to.deep.equal(
        [
          'access_token',
          'expires_in',
          'last_token_issued_date',
          'refresh_token',
          'scope',
          'token_issued_counter',
          'token_type',
        ].sort(),
      );
      expect(body.token_type).to.equal('bearer');
      expect(body.access_token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(body.refresh_token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(body.access_token).not.to.equal(body.refresh_token);
      expect(body.expires_in).to.equal(3600);
      expect(body.scope).to.equal('read');
      expect(body.token_issued_counter).to.equal(1);
      // FakeClock starts at 2026-11-21T02:05:02Z.
      expect(body.last_token_issued_date).to.equal('Saturday, November 21, 2026 2:05:02 AM UTC');
    });

    it('counts tokens issued per user and dates the last one', async () => {
      await login(app, 'alice');
      await login(app, 'bob');
      await app.clock.advance(13 * 3600 * 1000 + 1000);
      const third = await login(app, 'alice');
      expect(third.token_issued_counter).to.equal(2);
      expect(third.last_token_issued_date).to.equal('Saturday, November 21, 2026 3:05:03 PM UTC');
    });

    it('ignores unknown parameters', async () => {
      const res = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORDS.alice,
        ...CLIENT,
        extra: ['one', 'two'],
        state: 'x',
      });
      expect(res.statusCode).to.equal(200);
    });

    it('grants less scope when asked and refuses unknown scope', async () => {
      const base = { grant_type: 'password', username: 'alice', password: PASSWORDS.alice, ...CLIENT };
      const read = await post(app, '/oauth/token', { ...base, scope: 'read' });
      expect(read.json().scope).to.equal('read');
      expectOAuthError(
        await post(app, '/oauth/token', { ...base, scope: 'read write' }),
        400,
        'invalid_scope',
      );
    });

    it('answers invalid_request for a missing or repeated parameter', async () => {
      expectOAuthError(await post(app, '/oauth/token', { ...CLIENT }), 400, 'invalid_request');
      const missingPassword = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        ...CLIENT,
      });
      expectOAuthError(missingPassword, 400, 'invalid_request');
      expect(missingPassword.json().error_description).to.contain('password');
      const missingRefresh = await post(app, '/oauth/token', { grant_type: 'refresh_token', ...CLIENT });
      expectOAuthError(missingRefresh, 400, 'invalid_request');
      const repeated = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: ['alice', 'bob'],
        password: PASSWORDS.alice,
        ...CLIENT,
      });
      expectOAuthError(repeated, 400, 'invalid_request');
      expect(repeated.json().error_description).to.contain('username');
      const repeatedGrant = await post(app, '/oauth/token', {
        grant_type: ['password', 'password'],
        username: 'alice',
        password: PASSWORDS.alice,
        ...CLIENT,
      });
      expectOAuthError(repeatedGrant, 400, 'invalid_request');
      // An empty value counts as omitted (RFC 6749 §3.1).
      expectOAuthError(
        await post(app, '/oauth/token', {
          grant_type: 'password',
          username: 'alice',
          password: '',
          ...CLIENT,
        }),
        400,
        'invalid_request',
      );
    });

    it('also takes the parameters as a JSON object of strings', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'password', username: 'bob', password: PASSWORDS.bob, ...CLIENT },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json().token_type).to.equal('bearer');
    });

    it('answers invalid_request for a body that is not form parameters', async () => {
      const json = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/json' },
        payload: { grant_type: { nested: true } },
      });
      expectOAuthError(json, 400, 'invalid_request');
      const none = await app.inject({ method: 'POST', url: '/oauth/token' });
      expectOAuthError(none, 400, 'invalid_request');
      const text = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'text/plain' },
        payload: 'grant_type=password',
      });
      expectOAuthError(text, 400, 'invalid_request');
    });

    it('answers invalid_client with 401 and WWW-Authenticate', async () => {
      const cases: Record<string, string>[] = [
        { grant_type: 'password', username: 'alice', password: PASSWORDS.alice },
        { grant_type: 'password', username: 'alice', password: PASSWORDS.alice, client_id: 'junction' },
        {
          grant_type: 'password',
          username: 'alice',
          password: PASSWORDS.alice,
          client_id: 'junction',
          client_secret: 'nope',
        },
        {
          grant_type: 'password',
          username: 'alice',
          password: PASSWORDS.alice,
          client_id: 'other',
          client_secret: 'junction',
        },
      ];
      for (const fields of cases) {
        const res = await post(app, '/oauth/token', fields);
        expectOAuthError(res, 401, 'invalid_client');
        expect(res.headers['www-authenticate']).to.match(/^Basic realm="junction"/);
      }
      const badBasic = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'alice', password: PASSWORDS.alice },
        { authorization: basic('junction', 'wrong') },
      );
      expectOAuthError(badBasic, 401, 'invalid_client');
      const garbage = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'alice', password: PASSWORDS.alice },
        { authorization: 'Basic !!!' },
      );
      expectOAuthError(garbage, 401, 'invalid_client');
    });

    it('answers invalid_grant for bad user credentials', async () => {
      const wrongPassword = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: 'guess',
        ...CLIENT,
      });
      expectOAuthError(wrongPassword, 400, 'invalid_grant');
      const unknownUser = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'mallory',
        password: 'guess',
        ...CLIENT,
      });
      expectOAuthError(unknownUser, 400, 'invalid_grant');
      expect(unknownUser.json().error_description).to.equal(wrongPassword.json().error_description);
    });

    it('answers unsupported_grant_type for every other grant', async () => {
      for (const grant of [
        'client_credentials',
        'authorization_code',
        'implicit',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ]) {
        expectOAuthError(
          await post(app, '/oauth/token', { grant_type: grant, ...CLIENT }),
          400,
          'unsupported_grant_type',
        );
      }
    });

    it('accepts client credentials by HTTP Basic as well as in the body', async () => {
      const res = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'bob', password: PASSWORDS.bob },
        { authorization: basic('junction', 'junction') },
      );
      expect(res.statusCode, res.body).to.equal(200);
      expect((await probe(app, res.json().access_token)).json().username).to.equal('bob');
      // Basic plus the same client_id in the body is fine; a secret in both is two methods.
      const sameId = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'bob', password: PASSWORDS.bob, client_id: 'junction' },
        { authorization: basic('junction', 'junction') },
      );
      expect(sameId.statusCode).to.equal(200);
      const both = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'bob', password: PASSWORDS.bob, ...CLIENT },
        { authorization: basic('junction', 'junction') },
      );
      expectOAuthError(both, 400, 'invalid_request');
    });

    it('accepts the legacy client esb without a secret', async () => {
      const body = await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORDS.alice,
        client_id: 'esb',
      });
      expect(body.statusCode, body.body).to.equal(200);
      const viaBasic = await post(
        app,
        '/oauth/token',
        { grant_type: 'password', username: 'alice', password: PASSWORDS.alice },
        { authorization: basic('esb', '') },
      );
      expect(viaBasic.statusCode).to.equal(200);
      // Its refresh tokens are its own.
      const refreshed = await post(app, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: body.json().refresh_token,
        client_id: 'esb',
      });
      expect(refreshed.statusCode).to.equal(200);
    });
  });

  it('form-decodes Basic credentials and can disable the legacy client', async () => {
    const secret = 'sé cret:+%/&=';
    app = await authApp({
      config: { oauth: { 'client-id': 'my app', 'client-secret': secret, 'legacy-clients': false } },
    });
    const viaBasic = await post(
      app,
      '/oauth/token',
      { grant_type: 'password', username: 'alice', password: PASSWORDS.alice },
      { authorization: basic('my app', secret) },
    );
    expect(viaBasic.statusCode, viaBasic.body).to.equal(200);
    const viaBody = await post(app, '/oauth/token', {
      grant_type: 'password',
      username: 'alice',
      password: PASSWORDS.alice,
      client_id: 'my app',
      client_secret: secret,
    });
    expect(viaBody.statusCode).to.equal(200);
    const defaults = await post(app, '/oauth/token', {
      grant_type: 'password',
      username: 'alice',
      password: PASSWORDS.alice,
      ...CLIENT,
    });
    expectOAuthError(defaults, 401, 'invalid_client');
    const legacy = await post(app, '/oauth/token', {
      grant_type: 'password',
      username: 'alice',
      password: PASSWORDS.alice,
      client_id: 'esb',
    });
    expectOAuthError(legacy, 401, 'invalid_client');
  });

  it('never issues tokens longer than the caps and honours shorter lifetimes', async () => {
    app = await authApp({ config: { oauth: { 'access-token-ttl': 99999, 'refresh-token-ttl': 999999 } } });
    const capped = await login(app);
    expect(capped.expires_in).to.equal(3600);
    await app.stop();
    app = await authApp({ config: { oauth: { 'access-token-ttl': 60 } } });
    const short = await login(app);
    expect(short.expires_in).to.equal(60);
    await app.clock.advance(59_000);
    expect((await probe(app, short.access_token)).statusCode).to.equal(200);
    await app.clock.advance(1_000);
    expect((await probe(app, short.access_token)).statusCode).to.equal(401);
  });

  it('refuses plugin options, naming them', async () => {
    let err: unknown;
    await testApp({ plugins: [{ plugin: createAuthPlugin(), options: { ttl: 5 } }] }).catch(
      (e: unknown) => (err = e),
    );
    expect((err as Error).message).to.contain('takes no options (got ttl)');
  });

  it('lists the three endpoints in the OpenAPI document', async () => {
    app = await authApp();
    const doc = (await app.inject('/openapi.json')).json();
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect'])
      expect(doc.paths).to.have.property(path);
  });
});
