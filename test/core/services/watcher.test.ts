import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JunctionEventMap } from '../../../core/events.js';
import { FakeSandbox } from './fake-sandbox.js';
import { manifest, servicesApp, writePackage, type ServicesApp } from './helpers.js';

/** Resolves with the next `event` on app.events, or rejects after `ms` of real time. */
function next<K extends keyof JunctionEventMap>(
  app: ServicesApp,
  event: K,
  ms = 5000,
): Promise<JunctionEventMap[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${event} within ${ms} ms`));
    }, ms);
    const off = app.events.on(event, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}

/** Waits (real time, bounded) until the watcher has seen a change, i.e. a debounce timer is set. */
async function watcherSawChange(app: ServicesApp, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (app.clock.pending === 0) {
    if (Date.now() > until) throw new Error('the watcher saw no change');
    await new Promise((r) => setTimeout(r, 10));
  }
  // Let the rest of the burst arrive, so that no late event moves the deadline past an advance.
  await new Promise((r) => setTimeout(r, 50));
}

describe('core/services hot deploy (real fs.watch)', () => {
  let app: ServicesApp;
  let fake: FakeSandbox;
  beforeEach(async () => {
    fake = new FakeSandbox();
    app = await servicesApp({
      sandbox: (h) => fake.bind(h),
      config: { hotDeploy: { enabled: true, debounceMs: 200 } },
    });
  });
  afterEach(() => app.stop());

  it('deploys a new folder, redeploys a change after the debounce, undeploys a removed folder', async () => {
    const dir = app.config.servicesDir;
    writePackage(dir, 'hot', { 'package.yaml': manifest('hot'), 'code/A.js': 'export function f() {}' });
    await watcherSawChange(app);
    const deployed = next(app, 'package.deployed');
    await app.clock.advance(199);
    expect(app.services.hasPackage('hot')).to.equal(false);
    await app.clock.advance(1);
    expect(await deployed).to.deep.include({ name: 'hot', version: '1.0.0' });

    // A half-written package.yaml fails that deploy only; the previous version keeps serving.
    writeFileSync(join(dir, 'hot', 'package.yaml'), 'name: hot\nversion: "2');
    await watcherSawChange(app);
    const failed = next(app, 'package.failed');
    await app.clock.advance(200);
    expect((await failed).errors[0]).to.match(/YAML syntax error/);
    expect(app.services.info('hot')).to.deep.include({ status: 'deployed', version: '1.0.0' });

    writeFileSync(join(dir, 'hot', 'package.yaml'), manifest('hot', '2.0.0'));
    await watcherSawChange(app);
    const redeployed = next(app, 'package.deployed');
    await app.clock.advance(200);
    expect(await redeployed).to.deep.include({ name: 'hot', version: '2.0.0' });

    rmSync(join(dir, 'hot'), { recursive: true });
    await watcherSawChange(app);
    const undeployed = next(app, 'package.undeployed');
    await app.clock.advance(200);
    expect(await undeployed).to.deep.equal({ name: 'hot' });
    expect(app.services.packages()).to.deep.equal([]);
  });

  it('stops watching on stop()', async () => {
    await app.stop();
    writePackage(app.config.servicesDir, 'late', { 'package.yaml': manifest('late') });
    await new Promise((r) => setTimeout(r, 100));
    expect(app.clock.pending).to.equal(0);
  });
});
