import { expect } from 'chai';
import { FakeClock } from '../../../../core/clock.js';
import { TimerScheduler } from '../../../../plugins/flux/timers/scheduler.js';
import { TimingWheel } from '../../../../plugins/flux/timers/timing-wheel.js';

describe('flux timers: the timing wheel', () => {
  it('fires every entry in deadline order, never before its deadline, across levels', () => {
    const start = 1_700_000_000_003;
    const wheel = new TimingWheel(start, { tickMs: 10, slots: 16, levels: 4 });
    // A fixed pseudo-random spread over ~11 minutes (all four levels of a 16-slot wheel).
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const deadlines = Array.from({ length: 500 }, (_, id) => ({
      id,
      deadline: start + 1 + Math.floor(rand() * 600_000),
    }));
    for (const d of deadlines) expect(wheel.add(d)).to.equal(true);
    expect(wheel.size).to.equal(500);
    const fired: { id: number; deadline: number; at: number }[] = [];
    let now = start;
    for (let guard = 0; wheel.size > 0 && guard < 10_000; guard++) {
      now = wheel.nextWakeup()!;
      for (const e of wheel.advance(now)) fired.push({ ...e, at: now });
    }
    expect(fired).to.have.length(500);
    for (const f of fired) {
      expect(f.at).to.be.at.least(f.deadline);
      expect(f.at - f.deadline).to.be.below(10);
    }
    const order = fired.map((f) => f.deadline);
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
  });

  it('returns false for a deadline already due, and jumps over long empty stretches', () => {
    const wheel = new TimingWheel(1000);
    expect(wheel.add({ id: 1, deadline: 999 })).to.equal(false);
    expect(wheel.add({ id: 2, deadline: 1000 })).to.equal(false);
    expect(wheel.add({ id: 3, deadline: 1000 + 3 * 24 * 3600_000 })).to.equal(true);
    expect(wheel.nextWakeup()).to.be.at.most(1000 + 3 * 24 * 3600_000);
    expect(wheel.advance(1000 + 3 * 24 * 3600_000 - 1)).to.deep.equal([]);
    expect(wheel.advance(1000 + 3 * 24 * 3600_000).map((e) => e.id)).to.deep.equal([3]);
    expect(wheel.nextWakeup()).to.equal(undefined);
  });

  it('refuses a deadline beyond its span', () => {
    const wheel = new TimingWheel(0, { tickMs: 1, slots: 4, levels: 2 });
    expect(() => wheel.add({ id: 1, deadline: 10_000 })).to.throw(RangeError);
  });
});

describe('flux timers: the scheduler', () => {
  it('holds only the horizon in memory, refills from the source, and fires on the clock', async () => {
    const clock = new FakeClock(0);
    const stored: [number, number][] = [];
    for (let i = 1; i <= 100; i++) stored.push([i * 1000, i]);
    const source = {
      async *deadlines(after: number, until: number) {
        for (const d of stored) if (d[0] > after && d[0] <= until) yield d;
      },
    };
    const fired: number[] = [];
    const late: number[] = [];
    const scheduler = new TimerScheduler(clock, source, (id) => fired.push(id), {
      horizonMs: 10_000,
      onLateness: (ms) => late.push(ms),
    });
    expect(await scheduler.start()).to.equal(0);
    expect(scheduler.size).to.equal(10);
    await clock.advance(4_500);
    expect(fired).to.deep.equal([1, 2, 3, 4]);
    // A deadline committed within the loaded horizon is held at once; one beyond waits for a refill.
    scheduler.schedule(500, 7_500);
    scheduler.schedule(501, 60_000);
    expect(scheduler.size).to.equal(7);
    await clock.advance(100_000);
    await scheduler.idle();
    expect(fired.length).to.equal(101);
    expect(fired.slice(0, 8)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 500]);
    expect(fired).to.not.include(501);
    expect(Math.max(...late)).to.be.below(10);
    scheduler.stop();
  });

  it('fires overdue deadlines at start and counts them', async () => {
    const clock = new FakeClock(50_000);
    const source = {
      async *deadlines(after: number, until: number) {
        for (const d of [
          [10_000, 1],
          [20_000, 2],
          [70_000, 3],
        ] as [number, number][]) {
          if (d[0] > after && d[0] <= until) yield d;
        }
      },
    };
    const fired: number[] = [];
    const scheduler = new TimerScheduler(clock, source, (id) => fired.push(id), { horizonMs: 60_000 });
    expect(await scheduler.start()).to.equal(2);
    expect(fired).to.deep.equal([1, 2]);
    await clock.advance(20_000);
    expect(fired).to.deep.equal([1, 2, 3]);
    scheduler.stop();
  });
});

describe('flux timers: the scheduler after a long quiet spell', () => {
  it('holds a new deadline correctly when the clock moved far past the wheel', async () => {
    const clock = new FakeClock(0);
    const source = { async *deadlines(): AsyncIterable<[number, number]> {} };
    const fired: number[] = [];
    const scheduler = new TimerScheduler(clock, source, (id) => fired.push(id), { horizonMs: 60_000 });
    await scheduler.start();
    clock.set(3 * 365 * 24 * 3600_000); // beyond the wheel's span, nothing fired meanwhile
    await clock.advance(30_000); // the refill timer raises the horizon
    await scheduler.idle();
    scheduler.schedule(7, clock.now() + 5_000);
    await clock.advance(5_000);
    expect(fired).to.deep.equal([7]);
    scheduler.stop();
  });
});

describe('flux timers: the wheel over long jumps', () => {
  it('fires an entry a year ahead exactly at its deadline', () => {
    const wheel = new TimingWheel(0);
    const year = 365 * 24 * 3600_000;
    wheel.add({ id: 1, deadline: year });
    expect(wheel.advance(year - 1)).to.deep.equal([]);
    expect(wheel.advance(year).map((e) => e.id)).to.deep.equal([1]);
  });
});

describe('flux timers: the scheduler fires at the deadline', () => {
  it('fires each timer within its 1 ms tick, in deadline order, however they were scheduled', async () => {
    const clock = new FakeClock(1_000);
    const source = { async *deadlines(): AsyncIterable<[number, number]> {} };
    const fired: { id: number; at: number }[] = [];
    const scheduler = new TimerScheduler(clock, source, (id) => fired.push({ id, at: clock.now() }), {
      horizonMs: 60_000,
    });
    await scheduler.start();
    // A later one first (arms the wake-up), then later ones (keep it), then earlier ones (re-arm).
    const deadlines: [number, number][] = [
      [1, 1_500],
      [2, 1_900],
      [3, 1_500],
      [4, 1_200],
      [5, 1_007],
      [6, 1_003],
    ];
    for (const [id, at] of deadlines) scheduler.schedule(id, at);
    for (let t = 0; t < 1_000; t++) await clock.advance(1);
    expect(fired.map((f) => f.id)).to.deep.equal([6, 5, 4, 1, 3, 2]);
    for (const f of fired) {
      const deadline = deadlines.find(([id]) => id === f.id)![1];
      expect(f.at - deadline, `timer ${f.id}`).to.be.within(0, 1);
    }
    scheduler.stop();
  });
});
