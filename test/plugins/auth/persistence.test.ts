import { expect } from 'chai';
import { ClassicLevel } from 'classic-level';
import { FakeClock } from '../../../core/clock.js';
import { createLevelStorage } from '../../../core/storage/level-storage.js';
import { tempDir } from '../../helpers.js';
import { authApp, CLIENT, login, post, probe, refresh, type AuthTestApp } from './fixture.js';

/** Every key and value in the LevelDB folder, as text. */
async function dump(dir: string): Promise<string> {
  const db = new ClassicLevel<string, string>(dir);
  let text = '';
  for await (const [k, v] of db.iterator()) text += `${k}=${v}\n`;
  await db.close();
  return text;
}

describe('plugins/auth: persistence', () => {
  let app: AuthTestApp | undefined;
  afterEach(() => app?.stop());

  const open = async (
    dir: string,
    at: number,
    options: { withUsers?: boolean; announced?: string[] } = {},
  ) => {
    app = await authApp({ storage: createLevelStorage(dir), clock: new FakeClock(at), ...options });
    return app;
  };

  it('keeps tokens, rotation state and counters across a restart, stored only as hashes', async () => {
    const dir = tempDir();
    const t0 = Date.UTC(2026, 10, 21, 2, 5, 2);
    let a = await open(dir, t0);
    const first = await login(a);
    const second = (await refresh(a, first.refresh_token)).json();
    const revoked = await login(a);
    await post(a, '/oauth/revoke', { token: revoked.refresh_token, ...CLIENT });
    await a.stop();
    app = undefined;

    const stored = await dump(dir);
    expect(stored).to.contain('tokens!');
    for (const token of [
      first.access_token,
      first.refresh_token,
      second.access_token,
      second.refresh_token,
    ]) {
      expect(stored).not.to.contain(token);
    }

    a = await open(dir, t0 + 10 * 60_000);
    expect((await probe(a, second.access_token)).json().username).to.equal('alice');
    expect((await probe(a, revoked.access_token)).statusCode).to.equal(401);
    const third = (await refresh(a, second.refresh_token)).json();
    expect(third.token_issued_counter).to.equal(4);
    expect(third.last_token_issued_date).to.equal('Saturday, November 21, 2026 2:15:02 AM UTC');
    // The retired refresh token is still recognised after the restart: reuse revokes the grant.
    expect((await refresh(a, first.refresh_token)).json().error).to.equal('invalid_grant');
    expect((await probe(a, third.access_token)).statusCode).to.equal(401);
    await a.stop();

    // Past every lifetime, a restart drops what expired.
    a = await open(dir, t0 + 13 * 3600_000);
    expect((await probe(a, second.access_token)).statusCode).to.equal(401);
    await a.stop();
    app = undefined;
    expect((await dump(dir)).match(/tokens!/g) ?? []).to.have.length(0);
  });

  it('creates the first administrator once, prints its password once, keeps only its hash', async () => {
    const dir = tempDir();
    const announced: string[] = [];
    let a = await open(dir, Date.UTC(2026, 0, 1), { withUsers: false, announced });
    expect(announced).to.have.length(1);
    const password = /password: (\S+)/.exec(announced[0]!)?.[1];
    expect(password).to.be.a('string').with.length.greaterThan(16);
    const login = await post(a, '/oauth/token', {
      grant_type: 'password',
      username: 'admin',
      password: password!,
      ...CLIENT,
    });
    expect(login.statusCode).to.equal(200);
    const me = await probe(a, login.json().access_token, '/probe/admin');
    expect(me.json()).to.deep.equal({ username: 'admin', groups: ['administrators'] });
    await a.stop();
    app = undefined;
    expect(await dump(dir)).not.to.contain(password!);

    a = await open(dir, Date.UTC(2026, 0, 2), { withUsers: false, announced });
    expect(announced).to.have.length(1);
    const again = await post(a, '/oauth/token', {
      grant_type: 'password',
      username: 'admin',
      password: password!,
      ...CLIENT,
    });
    expect(again.statusCode).to.equal(200);
  });

  it('ignores the stored administrator when config lists users', async () => {
    const dir = tempDir();
    const announced: string[] = [];
    const a = await open(dir, Date.UTC(2026, 0, 1), { announced });
    expect(announced).to.have.length(0);
    expect((await probe(a, (await login(a)).access_token)).statusCode).to.equal(200);
    const admin = await post(a, '/oauth/token', {
      grant_type: 'password',
      username: 'admin',
      password: 'x',
      ...CLIENT,
    });
    expect(admin.json().error).to.equal('invalid_grant');
  });
});
