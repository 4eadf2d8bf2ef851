import { expect } from 'chai';
import { flux, harness, type Harness } from './harness.js';

const TIMED = `
states:
  - name: start
    transitions:
      - { event: go, to: await }
  - name: await
    transitions:
      - { event: approve, to: approved }
      - { after: PT24H, to: expired }
      - { at: "vars.deadline", to: deadline }
  - name: approved
  - name: expired
  - name: deadline
`;

const CRON = `
states:
  - name: idle
    transitions:
      - { cron: "0 9 * * 1-5", to: remind }
      - { event: stop, to: stopped }
  - name: remind
    action: { type: invokeCode, className: Reminder, methodName: send }
    transitions:
      - { to: idle }
  - name: stopped
`;

describe('flux engine: time transitions', () => {
  let h: Harness;
  const HOUR = 3600_000;

  beforeEach(async () => {
    h = await harness({ options: { timerHorizonMs: 60_000 } });
    h.services.define('timers', 'Reminder.send', (input) => ({ reminders: (input.reminders ?? 0) + 1 }));
    await h.services.deploy('timers', { ...flux('Timed', TIMED), ...flux('Cron', CRON) });
  });

  afterEach(async () => {
    await h.engine.stop();
  });

  it('waits WAITING_UNTIL the `after` deadline and takes it when it falls due', async () => {
    const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Timed' });
    const t0 = h.clock.now();
    await h.engine.sendEvent({ event: 'go', contextId });
    let ctx = (await h.engine.getContext(contextId))!;
    expect(ctx).to.include({ status: 'WAITING_UNTIL', nextRun: t0 + 24 * HOUR, waiting: true });
    await h.clock.advance(24 * HOUR - 1000);
    await h.engine.idle();
    expect((await h.engine.getContext(contextId))!.currentState).to.equal('await');
    await h.clock.advance(1000);
    await h.engine.idle();
    ctx = (await h.engine.getContext(contextId))!;
    expect(ctx).to.include({ currentState: 'expired', status: 'DONE', nextRun: 0 });
    expect(ctx.stateContexts.find((s) => s.name === 'await')!.transitionContexts[0]).to.include({
      kind: 'time',
      to: 'expired',
    });
    const lateness = await h.metrics.getSingleMetric('junction_flux_timer_lateness_seconds')!.get();
    expect(
      lateness.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count'))!.value,
    ).to.equal(1);
  });

  it('takes the earliest of several deadlines: an `at` expression (epoch ms or ISO date)', async () => {
    const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Timed' });
    const at = h.clock.now() + 2 * HOUR;
    await h.engine.sendEvent({ event: 'go', contextId, input: { deadline: new Date(at).toISOString() } });
    expect((await h.engine.getContext(contextId))!.nextRun).to.equal(at);
    await h.clock.advance(2 * HOUR);
    await h.engine.idle();
    expect((await h.engine.getContext(contextId))!.currentState).to.equal('deadline');
  });

  it('an event before the deadline moves the context and the timer no longer fires', async () => {
    const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Timed' });
    await h.engine.sendEvent({ event: 'go', contextId, input: { deadline: h.clock.now() + 30_000 } });
    await h.engine.sendEvent({ event: 'approve', contextId });
    await h.clock.advance(25 * HOUR);
    await h.engine.idle();
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.currentState).to.equal('approved');
    expect(ctx.executionHistory.map((e) => e.stateName)).to.deep.equal(['start', 'await', 'approved']);
    expect(h.engine.scheduler.size).to.equal(0);
  });

  it('an `at` expression that is no date fails the context', async () => {
    const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Timed' });
    await h.engine.sendEvent({ event: 'go', contextId, input: { deadline: 'soon' } });
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.status).to.equal('FAILED');
    expect(ctx.error!.type).to.equal('FluxTimeError');
  });

  it('fires `cron` transitions at each next matching time (UTC)', async () => {
    // FakeClock starts on Saturday 2026-11-21 02:05:02 UTC: the next weekday 09:00 is Monday.
    const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Cron' });
    const monday9 = Date.UTC(2026, 10, 23, 9, 0, 0);
    expect((await h.engine.getContext(contextId))!).to.include({ status: 'WAITING_UNTIL', nextRun: monday9 });
    await h.clock.advance(monday9 - h.clock.now());
    await h.engine.idle();
    let ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.vars.reminders).to.equal(1);
    expect(ctx).to.include({ currentState: 'idle', nextRun: Date.UTC(2026, 10, 24, 9, 0, 0) });
    await h.clock.advance(24 * HOUR);
    await h.engine.idle();
    ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.vars.reminders).to.equal(2);
  });

  it('holds only deadlines within the horizon in memory and loads later ones as they come near', async () => {
    for (let i = 0; i < 20; i++) {
      const { contextId } = await h.engine.execute({ packageName: 'timers', fluxName: 'Timed' });
      await h.engine.sendEvent({
        event: 'go',
        contextId,
        input: { deadline: h.clock.now() + (i + 1) * 10_000 },
      });
    }
    // Horizon 60 s: the deadlines at 10..60 s are held, the 14 later ones stay in storage only.
    expect(h.engine.scheduler.size).to.equal(6);
    await h.clock.advance(200_000);
    await h.engine.idle();
    const done = await h.engine.listContexts({ currentState: 'deadline', limit: 100, page: 0 });
    expect(done).to.have.length(20);
  });
});
