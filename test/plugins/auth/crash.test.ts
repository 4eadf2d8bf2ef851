import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { FakeClock } from '../../../core/clock.js';
import { hashPassword } from '../../../core/password.js';
import { createLevelStorage } from '../../../core/storage/level-storage.js';
import { tempDir } from '../../helpers.js';
import { authApp, probe } from './fixture.js';

const issuer = fileURLToPath(new URL('./fixtures/token-issuer.js', import.meta.url));

describe('plugins/auth: crash safety', () => {
  it('keeps every token it answered across a SIGKILL', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--no-node-snapshot', issuer, dir, tempDir()], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked: string[] = [];
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_c, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('ack ')) acked.push(line.slice(4));
        if (acked.length === 400) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => (acked.length < 400 ? reject(new Error('the issuer exited early')) : resolve()));
    });
    expect(await exited).to.equal('SIGKILL');

    // The same user as the issuer's: a token of a user no longer configured is refused.
    const app = await authApp({
      storage: createLevelStorage(dir),
      clock: new FakeClock(Date.now()),
      withUsers: false,
      config: { users: [{ username: 'crash', password: await hashPassword('crash-pw'), groups: [] }] },
    });
    try {
      const lost: string[] = [];
      for (const token of acked) if ((await probe(app, token)).statusCode !== 200) lost.push(token);
      expect(lost.length, 'acknowledged access tokens lost').to.equal(0);
    } finally {
      await app.stop();
    }
  });
});
