/**
 * bench:storage — durable writes/s through the group commit with 1, 16 and 256 concurrent
 * writers, side by side with one synced LevelDB write per put (no group commit). Every write is
 * acknowledged only once fsync'd. Target: ≥ 20,000 durable writes/s at 256 writers.
 *
 *   npm run bench:storage [-- --seconds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ClassicLevel } from 'classic-level';
import { createLevelStorage } from '../../core/storage/level-storage.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const seconds = Number(values.seconds);
const value = {
  id: 0,
  name: 'a benchmark record of about one hundred and twenty bytes',
  tags: ['x', 'y'],
  n: 0,
};

async function run(concurrency: number, put: (key: string) => Promise<void>): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < until; i++) {
        await put(`w${String(w).padStart(3, '0')}-${String(i).padStart(9, '0')}`);
        done++;
      }
    }),
  );
  return done / seconds;
}

async function groupCommit(concurrency: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  const storage = createLevelStorage(dir);
  await storage.open();
  const store = storage.store('bench');
  try {
    return await run(concurrency, (key) => store.put(key, value));
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function syncPerPut(concurrency: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  const db = new ClassicLevel<string, unknown>(dir, { valueEncoding: 'json' });
  await db.open();
  try {
    return await run(concurrency, (key) => db.put(key, value, { sync: true }));
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(10);
console.log(`durable writes/s, ${seconds} s per run (each write acknowledged after fsync)\n`);
console.log('writers   group commit   synced put each   ratio');
for (const c of [1, 16, 256]) {
  const gc = await groupCommit(c);
  const sp = await syncPerPut(c);
  console.log(`${String(c).padStart(7)}   ${fmt(gc)}     ${fmt(sp)}     ${(gc / sp).toFixed(1)}x`);
}
