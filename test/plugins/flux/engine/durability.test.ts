import { expect } from 'chai';
import { FakeClock } from '../../../../core/clock.js';
import { join } from 'node:path';
import { createLevelStorage, createMemoryStorage } from '../../../../core/storage/level-storage.js';
import { tempDir } from '../../../helpers.js';
import { FakeServices, flux, harness, PING_PONG } from './harness.js';

const FLOW = `
states:
  - name: start
    action: { type: invokeCode, className: Work, methodName: run }
    transitions:
      - { to: wait }
  - name: wait
    transitions:
      - { event: go, to: end }
      - { after: PT1H, to: late }
  - name: end
  - name: late
`;

describe('flux engine: durability and recovery', () => {
  it('a new engine on the same storage re-runs a context caught mid-step and fires overdue timers', async () => {
    const storage = createMemoryStorage();
    const clock = new FakeClock();
    const services = new FakeServices();
    let runs = 0;
    let block = false;
    services.define('app', 'Work.run', async () => {
      runs++;
      if (block) await new Promise(() => undefined); // the process "dies" during this action
      return { worked: runs };
    });
    const first = await harness({ storage, clock, services, packages: { app: flux('Flow', FLOW) } });
    const waiting = await first.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    expect((await first.engine.getContext(waiting.contextId))!.status).to.equal('WAITING_UNTIL');
    block = true;
    void first.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    while (runs < 2) await new Promise((resolve) => setImmediate(resolve));
    const caught = (await first.engine.listContexts({ status: 'RUNNING', limit: 10, page: 0 }))[0]!;
    expect(caught.currentState).to.equal('start');
    first.engine.scheduler.stop();

    // Down for two hours; a new process on the same storage (packages redeployed first).
    clock.set(clock.now() + 2 * 3600_000);
    block = false;
    const second = await harness({ storage, clock, services, packages: { app: flux('Flow', FLOW) } });
    await second.engine.idle();
    expect(runs).to.equal(3); // the interrupted action ran again: at-least-once
    const resumed = (await second.engine.getContext(caught.id))!;
    expect(resumed).to.include({ status: 'WAITING_UNTIL', currentState: 'wait' });
    expect(resumed.vars.worked).to.equal(3);
    const fired = (await second.engine.getContext(waiting.contextId))!;
    expect(fired).to.include({ status: 'DONE', currentState: 'late' });
    const line = second.logs.find((l) => /recovered/.test(l.msg))!;
    expect(line.obj).to.include({ rerun: 1, overdueTimers: 1 });
    // Ids keep counting up from the persisted counter.
    const next = await second.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    expect(next.contextId).to.equal(3);
    await second.engine.stop();
  });

  it('keeps a context on the definition version it started with across a redeploy and a restart', async () => {
    const storage = createMemoryStorage();
    const clock = new FakeClock();
    const services = new FakeServices();
    services.define('app', 'Work.run', () => ({}));
    const v1 = flux('Flow', FLOW);
    const v2 = flux('Flow', FLOW.replace('{ event: go, to: end }', '{ event: go, to: late }'));
    const h = await harness({ storage, clock, services, packages: { app: v1 } });
    const old = await h.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    await services.deploy('app', v2);
    const fresh = await h.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    await h.engine.stop();

    // Restart with only v2 deployed: the old context still finishes on v1.
    const again = await harness({ storage, clock, services, packages: { app: v2 } });
    const a = await again.engine.sendEvent({ event: 'go', contextId: old.contextId });
    const b = await again.engine.sendEvent({ event: 'go', contextId: fresh.contextId });
    expect(a.transitions).to.deep.equal([{ contextId: old.contextId, state: 'end' }]);
    expect(b.transitions).to.deep.equal([{ contextId: fresh.contextId, state: 'late' }]);
    const oldDef = await again.engine.getDefinition({ contextId: old.contextId });
    expect(JSON.stringify(oldDef)).to.contain('"to":"end"');
    await again.engine.stop();
  });

  it('writes each change with its index keys in one batch and leaves no stale index entry', async () => {
    const services = new FakeServices();
    services.define('app', 'Work.run', () => ({}));
    const h = await harness({ services, packages: { app: flux('Flow', FLOW) } });
    const { contextId } = await h.engine.execute({ packageName: 'app', fluxName: 'Flow', tags: ['a'] });
    await h.engine.addTags(contextId, ['b']);
    await h.engine.sendEvent({ event: 'go', contextId });
    const keys: string[] = [];
    for await (const k of h.storage.store('flux').store('index').keys()) keys.push(k);
    const id = String(contextId).padStart(16, '0');
    expect(keys.sort()).to.deep.equal(
      [
        `flux/Flow/${id}`,
        `start/start/${id}`,
        `state/end/${id}`,
        `status/DONE/${id}`,
        `tag/a/${id}`,
        `tag/b/${id}`,
      ].sort(),
    );
    await h.engine.stop();
  });

  it('survives closing and reopening a LevelDB on disk: contexts, versions, counter and timers', async () => {
    const dir = join(tempDir('junction-flux-engine-'), 'db');
    const clock = new FakeClock();
    const services = new FakeServices();
    services.define('app', 'Work.run', () => ({ ok: true }));
    const v1 = flux('Flow', FLOW);
    const first = await harness({ storage: createLevelStorage(dir), clock, services, packages: { app: v1 } });
    const a = await first.engine.execute({ packageName: 'app', fluxName: 'Flow', tags: ['disk'] });
    const b = await first.engine.execute({ packageName: 'app', fluxName: 'Flow' });
    await first.engine.stop();
    await first.storage.close();

    clock.set(clock.now() + 2 * 3600_000);
    const v2 = flux('Flow', FLOW.replace('{ event: go, to: end }', '{ event: go, to: late }'));
    const second = await harness({
      storage: createLevelStorage(dir),
      clock,
      services,
      packages: { app: v2 },
    });
    await second.engine.idle();
    // Both deadlines (PT1H) passed while down: fired at start-up.
    for (const id of [a.contextId, b.contextId]) {
      expect((await second.engine.getContext(id))!).to.include({ status: 'DONE', currentState: 'late' });
    }
    expect(
      (await second.engine.listContexts({ tags: ['disk'], limit: 10, page: 0 })).map((c) => c.id),
    ).to.deep.equal([a.contextId]);
    expect(JSON.stringify(await second.engine.getDefinition({ contextId: a.contextId }))).to.contain(
      '"to":"end"',
    );
    expect((await second.engine.execute({ packageName: 'app', fluxName: 'Flow' })).contextId).to.equal(3);
    await second.engine.stop();
    await second.storage.close();
  });

  it('a failed write is no workflow error: the context is not marked FAILED and resumes later', async () => {
    const storage = createMemoryStorage();
    const clock = new FakeClock();
    const services = new FakeServices();
    let failWrites = 0;
    let runs = 0;
    services.define('app', 'Work.run', () => {
      runs++;
      if (runs === 1) failWrites = 1; // one write fails just after the first action ran
      return { runs };
    });
    const contexts = (await storage.open(), storage.store('flux').store('contexts'));
    const batch = contexts.batch.bind(contexts);
    contexts.batch = async (ops, options) => {
      if (failWrites > 0) {
        failWrites--;
        throw new Error('disk full');
      }
      return batch(ops, options);
    };
    const first = await harness({ storage, clock, services, packages: { app: flux('Flow', FLOW) } });
    const err = await first.engine.execute({ packageName: 'app', fluxName: 'Flow' }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('disk full');
    const [caught] = await first.engine.listContexts({ limit: 1, page: 0 });
    expect(caught).to.include({ status: 'RUNNING', currentState: 'start' });
    first.engine.scheduler.stop();
    const second = await harness({ storage, clock, services, packages: { app: flux('Flow', FLOW) } });
    expect((await second.engine.getContext(caught!.id))!).to.include({
      status: 'WAITING_UNTIL',
      currentState: 'wait',
    });
    expect(runs).to.equal(2);
    await second.engine.stop();
  });

  it('a failed write of an event leaves the context as stored for the next event', async () => {
    const storage = createMemoryStorage();
    const contexts = (await storage.open(), storage.store('flux').store('contexts'));
    let failWrites = 0;
    const batch = contexts.batch.bind(contexts);
    contexts.batch = async (ops, options) => {
      if (failWrites > 0) {
        failWrites--;
        throw new Error('disk full');
      }
      return batch(ops, options);
    };
    const h = await harness({ storage, packages: { app: flux('PingPong', PING_PONG) } });
    const { contextId } = await h.engine.execute({ packageName: 'app', fluxName: 'PingPong' });
    failWrites = 1;
    const err = await h.engine.sendEvent({ event: 'next', contextId }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('disk full');
    // The change that was not written is not what the next event works on.
    const moved = await h.engine.sendEvent({ event: 'next', contextId });
    expect(moved.transitions).to.deep.equal([{ contextId, state: 'pong' }]);
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.executionHistory.map((e) => e.stateName)).to.deep.equal(['ping', 'pong']);
    await h.engine.stop();
  });

  it('refuses changes until started (the id counter is not loaded yet)', async () => {
    const h = await harness({ start: false, packages: { app: flux('Flow', 'states:\n  - name: a\n') } });
    const code = await h.engine.execute({ packageName: 'app', fluxName: 'Flow' }).catch((e: any) => e.code);
    expect(code).to.equal('JCT_UNAVAILABLE');
    await h.engine.start();
    expect((await h.engine.execute({ packageName: 'app', fluxName: 'Flow' })).contextId).to.equal(1);
    await h.engine.stop();
  });
});
