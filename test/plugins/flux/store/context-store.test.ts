import { join } from 'node:path';
import { createLevelStorage, createMemoryStorage } from '../../../../core/storage/level-storage.js';
import { tempDir } from '../../../helpers.js';
import { contextStoreSuite } from './context-store.suite.js';

contextStoreSuite('memory-level', {
  async open() {
    const storage = createMemoryStorage();
    await storage.open();
    return storage;
  },
  // Memory lives as long as the instance: a "restarted process" is the same open instance.
  reopen: async (storage) => storage,
});

let dir = '';
contextStoreSuite('LevelDB (classic-level, on disk)', {
  async open() {
    dir = join(tempDir('junction-flux-store-'), 'db');
    const storage = createLevelStorage(dir);
    await storage.open();
    return storage;
  },
  async reopen(storage) {
    await storage.close();
    const again = createLevelStorage(dir);
    await again.open();
    return again;
  },
});
