import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createLevelStorage } from '../../../core/storage/level-storage.js';
import { tempDir } from '../../helpers.js';

const writerScript = fileURLToPath(new URL('../../fixtures/durable-writer.js', import.meta.url));

describe('core/storage durability', () => {
  it('keeps every acknowledged write across a SIGKILL of the writing process', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--no-node-snapshot', writerScript, dir, '64'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked: string[] = [];
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        if (line.startsWith('ack ')) acked.push(line.slice(4));
        if (acked.length === 3000) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => (acked.length < 3000 ? reject(new Error('writer exited early')) : resolve()));
    });
    expect(await exited).to.equal('SIGKILL');

    const storage = createLevelStorage(dir);
    await storage.open();
    try {
      const values = await storage.store('durable').getMany(acked);
      const lost = acked.filter((_, i) => values[i] === undefined);
      expect(lost, `acknowledged writes lost: ${lost.slice(0, 5).join(', ')}`).to.deep.equal([]);
    } finally {
      await storage.close();
    }
  });
});
