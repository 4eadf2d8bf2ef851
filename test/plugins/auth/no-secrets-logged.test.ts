import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../core/logger.js';
import { authApp, CLIENT, PASSWORDS, post, probe } from './fixture.js';

describe('plugins/auth: logs', () => {
  it('never carry a password, a client secret or a token', async () => {
    let log = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        log += chunk.toString();
        done();
      },
    });
    const announced: string[] = [];
    const app = await authApp({
      logger: createLogger('trace', sink),
      config: { oauth: { 'client-secret': 'very-secret-client', 'max-failed-logins': 2 } },
      withUsers: false,
      announced,
    });
    const client = { client_id: 'junction', client_secret: 'very-secret-client' };
    const adminPassword = /password: (\S+)/.exec(announced[0]!)![1]!;
    const secrets = [adminPassword, 'very-secret-client', PASSWORDS.alice, 'wrong-guess-123'];
    try {
      const admin = (
        await post(app, '/oauth/token', {
          grant_type: 'password',
          username: 'admin',
          password: adminPassword,
          ...client,
        })
      ).json();
      await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'admin',
        password: 'wrong-guess-123',
        ...client,
      });
      await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'alice',
        password: PASSWORDS.alice,
        ...client,
      });
      await post(app, '/oauth/token', {
        grant_type: 'password',
        username: 'x',
        password: 'wrong-guess-123',
        ...CLIENT,
      });
      const next = (
        await post(app, '/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: admin.refresh_token,
          ...client,
        })
      ).json();
      await post(app, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: admin.refresh_token,
        ...client,
      });
      await probe(app, next.access_token);
      await probe(app, admin.access_token);
      await post(app, '/oauth/introspect', { token: next.access_token, ...client });
      await post(app, '/oauth/revoke', { token: next.refresh_token, ...client });
      secrets.push(admin.access_token, admin.refresh_token, next.access_token, next.refresh_token);
    } finally {
      await app.stop();
    }
    expect(log).to.contain('"url":"/oauth/token"');
    expect(log).to.contain('first administrator');
    expect(log).to.contain('refresh token reused');
    for (const secret of secrets) expect(log).not.to.contain(secret);
  });
});
