import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { authApp, PASSWORDS, type AuthTestApp } from './fixture.js';

/** The token endpoint as a standard OAuth client library drives it, over a real socket. */
describe('plugins/auth: driven by the oauth4webapi client', () => {
  let app: AuthTestApp;
  let as: oauth.AuthorizationServer;
  const client: oauth.Client = { client_id: 'junction' };
  const insecure = { [oauth.allowInsecureRequests]: true };

  before(async () => {
    app = await authApp({ listen: true });
    const base = app.address!;
    as = {
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
    };
  });
  after(() => app.stop());

  const passwordGrant = (auth: oauth.ClientAuth, username: string, password: string, c = client) =>
    oauth.genericTokenEndpointRequest(as, c, auth, 'password', { username, password }, insecure);

  for (const [name, auth] of [
    ['client_secret_basic', oauth.ClientSecretBasic('junction')],
    ['client_secret_post', oauth.ClientSecretPost('junction')],
  ] as const) {
    it(`runs password grant, resource call, refresh, introspection and revocation (${name})`, async () => {
      const tokens = await oauth.processGenericTokenEndpointResponse(
        as,
        client,
        await passwordGrant(auth, 'alice', PASSWORDS.alice),
      );
      expect(tokens.token_type).to.equal('bearer');
      expect(tokens.expires_in).to.equal(3600);
      expect(tokens.scope).to.equal('read');
      expect(tokens.token_issued_counter).to.be.a('number');

      const me = await oauth.protectedResourceRequest(
        tokens.access_token,
        'GET',
        new URL(`${app.address}/probe/me`),
        undefined,
        undefined,
        insecure,
      );
      expect(me.status).to.equal(200);
      expect(await me.json()).to.deep.include({ username: 'alice' });

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
      );
      expect(refreshed.access_token).not.to.equal(tokens.access_token);
      expect(refreshed.refresh_token).not.to.equal(tokens.refresh_token);

      const info = await oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, auth, refreshed.access_token, insecure),
      );
      expect(info.active).to.equal(true);
      expect(info.username).to.equal('alice');

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure),
      );
      // The library parses the RFC 6750 challenge of the 401 and throws it.
      let challenge: unknown;
      await oauth
        .protectedResourceRequest(
          refreshed.access_token,
          'GET',
          new URL(`${app.address}/probe/me`),
          undefined,
          undefined,
          insecure,
        )
        .catch((e: unknown) => (challenge = e));
      expect(challenge).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
      const { status, cause } = challenge as oauth.WWWAuthenticateChallengeError;
      expect(status).to.equal(401);
      expect(cause[0]?.scheme).to.equal('bearer');
      expect(cause[0]?.parameters.error).to.equal('invalid_token');
      expect(cause[0]?.parameters.realm).to.equal('junction');
    });
  }

  it('works with the legacy public client', async () => {
    const esb: oauth.Client = { client_id: 'esb' };
    const tokens = await oauth.processGenericTokenEndpointResponse(
      as,
      esb,
      await passwordGrant(oauth.None(), 'bob', PASSWORDS.bob, esb),
    );
    expect(tokens.access_token).to.be.a('string');
  });

  it('surfaces the RFC 6749 errors the library understands', async () => {
    let err: unknown;
    await oauth
      .processGenericTokenEndpointResponse(
        as,
        client,
        await passwordGrant(oauth.ClientSecretPost('junction'), 'alice', 'wrong'),
      )
      .catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).error).to.equal('invalid_grant');
    expect((err as oauth.ResponseBodyError).status).to.equal(400);

    err = undefined;
    await oauth
      .processGenericTokenEndpointResponse(
        as,
        client,
        await passwordGrant(oauth.ClientSecretBasic('bad'), 'alice', PASSWORDS.alice),
      )
      .catch((e: unknown) => (err = e));
    // A 401 with a challenge: the library reports the challenge.
    expect(err).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
    expect((err as oauth.WWWAuthenticateChallengeError).status).to.equal(401);
  });
});
