import { expect } from 'chai';
import { JunctionError } from '../../../core/errors.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../../../plugins/auth/types.js';
import { authApp, login, probe, type AuthTestApp } from './fixture.js';

describe('plugins/auth: the bearer verifier', () => {
  let app: AuthTestApp;
  let verifier: BearerVerifier;
  beforeEach(async () => {
    app = await authApp();
    verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
  });
  afterEach(() => app.stop());

  it('resolves the user of a token, with groups', async () => {
    const t = await login(app, 'alice');
    const res = await probe(app, t.access_token);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ username: 'alice', groups: ['administrators', 'sales'] });
    expect(await verifier.authenticate(`bearer  ${t.access_token}`)).to.deep.equal({
      username: 'alice',
      groups: ['administrators', 'sales'],
    });
  });

  it('treats a request without a token as anonymous, and a protected one as 401', async () => {
    expect(await verifier.authenticate(undefined)).to.equal(undefined);
    expect((await probe(app, undefined, '/probe/optional')).json().username).to.equal('Anonymous');
    const res = await probe(app, undefined);
    expect(res.statusCode).to.equal(401);
    expect(res.headers['www-authenticate']).to.equal('Bearer realm="junction"');
    expect(res.json().code).to.equal('JCT_UNAUTHORIZED');
  });

  it('answers a malformed, unknown or refresh token with 401 invalid_token', async () => {
    const t = await login(app);
    const headers = [
      'Bearer',
      'Bearer a b',
      `Basic ${t.access_token}`,
      'Bearer ' + 'x'.repeat(43),
      `Bearer ${t.refresh_token}`,
    ];
    for (const authorization of headers) {
      for (const url of ['/probe/me', '/probe/optional']) {
        const res = await app.inject({ url, headers: { authorization } });
        expect(res.statusCode, authorization).to.equal(401);
        expect(res.json().code).to.equal('JCT_AUTH_INVALID_TOKEN');
        expect(res.headers['www-authenticate']).to.match(/^Bearer realm="junction", error="invalid_token"/);
      }
    }
    let thrown: unknown;
    await verifier.authenticate('Bearer nope').catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(JunctionError);
    expect((thrown as JunctionError).statusCode).to.equal(401);
  });

  it('answers 403 to a user lacking the group', async () => {
    const bob = await login(app, 'bob');
    const alice = await login(app, 'alice');
    const denied = await probe(app, bob.access_token, '/probe/admin');
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('JCT_FORBIDDEN');
    expect((await probe(app, alice.access_token, '/probe/admin')).statusCode).to.equal(200);
  });

  it('applies access rules and knows the configured users', () => {
    const alice = verifier.user('alice')!;
    const bob = verifier.user('bob')!;
    expect(verifier.user('nobody')).to.equal(undefined);
    expect(verifier.allows(alice, {})).to.equal(true);
    expect(verifier.allows(alice, { groups: ['sales', 'ops'] })).to.equal(true);
    expect(verifier.allows(bob, { groups: ['sales'] })).to.equal(false);
    expect(verifier.allows(bob, { users: ['bob'] })).to.equal(true);
    expect(verifier.allows(alice, { users: ['bob'] })).to.equal(false);
    // Both given: both must hold.
    expect(verifier.allows(alice, { users: ['alice'], groups: ['sales'] })).to.equal(true);
    expect(verifier.allows(bob, { users: ['bob'], groups: ['sales'] })).to.equal(false);
    expect(verifier.allows(bob, { users: [], groups: [] })).to.equal(true);
  });

  it('does not read storage to check a token', async () => {
    const t = await login(app);
    const store = app.storage.store('auth').store('tokens');
    const original = { get: store.get, getMany: store.getMany, entries: store.entries };
    let reads = 0;
    store.get = (...args: Parameters<typeof store.get>) =>
      (reads++, original.get.apply(store, args)) as never;
    store.getMany = (...args: Parameters<typeof store.getMany>) =>
      (reads++, original.getMany.apply(store, args)) as never;
    store.entries = (...args: Parameters<typeof store.entries>) =>
      (reads++, original.entries.apply(store, args)) as never;
    try {
      for (let i = 0; i < 20; i++) expect((await probe(app, t.access_token)).statusCode).to.equal(200);
    } finally {
      Object.assign(store, original);
    }
    expect(reads).to.equal(0);
  });
});
