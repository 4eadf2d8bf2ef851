import { expect } from 'chai';
import { createLevelStorage, createMemoryStorage } from '../../../core/storage/level-storage.js';
import { tempDir } from '../../helpers.js';
import { storageSuite } from './suite.js';

storageSuite('memory', () => createMemoryStorage());

const dirs = new WeakMap<object, string>();
storageSuite(
  'leveldb',
  () => {
    const dir = tempDir();
    const s = createLevelStorage(dir);
    dirs.set(s, dir);
    return s;
  },
  (previous) => createLevelStorage(dirs.get(previous)!),
);

describe('core/storage (leveldb)', () => {
  it('refuses a second opener of the same folder with a clear error', async () => {
    const dir = tempDir();
    const first = createLevelStorage(dir);
    await first.open();
    const second = createLevelStorage(dir);
    let err: unknown;
    try {
      await second.open();
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).to.match(/^cannot open storage: .*LOCK/);
    expect(second.status).to.equal('failed');
    await first.close();
  });
});
