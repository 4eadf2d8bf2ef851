import { expect } from 'chai';
import { FakeClock } from '../../../core/clock.js';
import { LoginThrottle } from '../../../plugins/auth/login-throttle.js';
import { authApp, CLIENT, PASSWORDS, type AuthTestApp } from './fixture.js';

describe('plugins/auth: brute-force protection of the password grant', () => {
  let app: AuthTestApp;
  beforeEach(async () => {
    app = await authApp({ config: { oauth: { 'max-failed-logins': 3, 'lockout-window': 600 } } });
  });
  afterEach(() => app.stop());

  const attempt = (username: string, password: string, address = '127.0.0.1') =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'password', username, password, ...CLIENT }).toString(),
    });

  it('locks a user out after too many failures, with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('alice', 'wrong')).statusCode).to.equal(400);
    const locked = await attempt('alice', PASSWORDS.alice, '10.0.0.9');
    expect(locked.statusCode).to.equal(429);
    expect(locked.json().error).to.equal('invalid_grant');
    expect(locked.headers['retry-after']).to.equal('600');
    expect(locked.headers['cache-control']).to.equal('no-store');
    // Other users are not affected (from another address).
    expect((await attempt('bob', PASSWORDS.bob, '10.0.0.9')).statusCode).to.equal(200);
    await app.clock.advance(400_000);
    expect((await attempt('alice', PASSWORDS.alice, '10.0.0.9')).headers['retry-after']).to.equal('200');
    await app.clock.advance(200_000);
    expect((await attempt('alice', PASSWORDS.alice, '10.0.0.9')).statusCode).to.equal(200);
  });

  it('locks a client address out across usernames', async () => {
    for (const name of ['u1', 'u2', 'u3'])
      expect((await attempt(name, 'x', '10.1.1.1')).statusCode).to.equal(400);
    const locked = await attempt('bob', PASSWORDS.bob, '10.1.1.1');
    expect(locked.statusCode).to.equal(429);
    expect(Number(locked.headers['retry-after'])).to.be.greaterThan(0);
    expect((await attempt('bob', PASSWORDS.bob, '10.1.1.2')).statusCode).to.equal(200);
  });

  it('counts guesses sent in parallel before their checks finish', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => attempt('alice', 'wrong', '10.3.0.1')));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).to.deep.equal([400, 400, 400, 429, 429, 429, 429, 429]);
  });

  it('queues parallel logins that succeed instead of refusing them', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => attempt('bob', PASSWORDS.bob, '10.5.0.1')),
    );
    expect(answers.map((r) => r.statusCode)).to.deep.equal(Array(10).fill(200));
  });

  it('does not count successful logins against the address', async () => {
    for (let i = 0; i < 5; i++)
      expect((await attempt('bob', PASSWORDS.bob, '10.4.0.1')).statusCode).to.equal(200);
    await attempt('x', 'wrong', '10.4.0.1');
    await attempt('y', 'wrong', '10.4.0.1');
    expect((await attempt('bob', PASSWORDS.bob, '10.4.0.1')).statusCode).to.equal(200);
  });

  it('forgets a user’s failures after a successful login', async () => {
    for (let i = 0; i < 2; i++) await attempt('alice', 'wrong', `10.2.0.${i}`);
    expect((await attempt('alice', PASSWORDS.alice, '10.2.1.1')).statusCode).to.equal(200);
    for (let i = 0; i < 2; i++) await attempt('alice', 'wrong', `10.2.2.${i}`);
    expect((await attempt('alice', PASSWORDS.alice, '10.2.3.1')).statusCode).to.equal(200);
  });
});

describe('plugins/auth: LoginThrottle', () => {
  const admitted = async (throttle: LoginThrottle, user: string, address: string) => {
    const a = await throttle.admit(user, address);
    if (!('attempt' in a)) throw new Error(`locked for ${a.retryAfter} s`);
    return a.attempt;
  };

  it('forgets failures that left the window and bounds the keys it tracks', async () => {
    const clock = new FakeClock();
    const throttle = new LoginThrottle(clock, { maxFailures: 2, windowMs: 10_000, maxKeys: 4 });
    (await admitted(throttle, 'a', '1.1.1.1')).failed();
    await clock.advance(6_000);
    (await admitted(throttle, 'a', '1.1.1.2')).failed();
    expect(throttle.retryAfter('a', '9.9.9.9')).to.equal(4);
    expect(await throttle.admit('a', '9.9.9.9')).to.deep.equal({ retryAfter: 4 });
    await clock.advance(4_000);
    expect(throttle.retryAfter('a', '9.9.9.9')).to.equal(0);
    // Two more keys (user b, its address) push the oldest out: at most four are tracked.
    (await admitted(throttle, 'b', '2.2.2.2')).failed();
    (await admitted(throttle, 'b', '2.2.2.2')).failed();
    expect(throttle.retryAfter('b', '0.0.0.0')).to.equal(10);
    expect(throttle.retryAfter('x', '2.2.2.2')).to.equal(10);
    for (let i = 0; i < 10; i++) (await admitted(throttle, `u${i}`, `3.3.3.${i}`)).failed();
    expect(throttle.retryAfter('b', '0.0.0.0')).to.equal(0);
    throttle.prune();
  });

  it('holds attempts beyond the limit until running checks finish', async () => {
    const throttle = new LoginThrottle(new FakeClock(), { maxFailures: 2, windowMs: 10_000 });
    const first = await admitted(throttle, 'a', '1.1.1.1');
    const second = await admitted(throttle, 'a', '1.1.1.1');
    let third: unknown;
    const pending = throttle.admit('a', '1.1.1.1').then((r) => (third = r));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).to.equal(undefined);
    first.succeeded();
    await pending;
    expect(third).to.have.property('attempt');
    second.failed();
    second.failed(); // settling twice counts once
    expect(throttle.retryAfter('a', '1.1.1.1')).to.equal(0);
  });
});
