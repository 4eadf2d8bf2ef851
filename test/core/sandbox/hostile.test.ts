import { expect } from 'chai';
import { pkg, rejection, testSandbox, until, type TestSandbox } from './fixtures.js';

const evil = pkg('evil', {
  'Evil.js': `
    export async function ok(input) { return { ok: input.n }; }
    export async function spin() { while (true) {} }
    export async function spinLater() { await Promise.resolve(); while (true) {} }
    export async function never() { return new Promise(() => {}); }
    export async function block() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); }
    export async function bomb() { const keep = []; while (true) keep.push('x'.repeat(1024) + Math.random()); }
    export async function bigBuffer() { return new ArrayBuffer(2 ** 31).byteLength; }
    export async function useProcess() { return process.env; }
    export async function useRequire() { return require('fs'); }
    export async function importFs() { const fs = await import('node:fs'); return typeof fs; }
    export async function importOwn() { const m = await import('./Evil.js'); return typeof m; }
    export async function globalChain() { return globalThis.constructor.constructor('return process')(); }
    export async function ctxChain(input, ctx) { return ctx.constructor.constructor('return process')(); }
    export async function logChain(input, ctx) {
      const g = ctx.log.info.constructor('return this')();
      return { process: typeof g.process, require: typeof g.require, keys: Object.getOwnPropertyNames(g).filter((k) => /ivm|host|junction/i.test(k)) };
    }
    export async function callerChain(input, ctx) {
      const spy = new Function('var c = arguments.callee.caller; return c === null ? null : String(c).slice(0, 60)');
      const args = {};
      Object.defineProperty(args, 'caller', { enumerable: true, get: spy });
      return ctx.flux.sendEvent(args);
    }
    export async function timer() { setTimeout(() => {}, 10); return 'scheduled'; }
    export async function globals() {
      return [typeof process, typeof require, typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof fetch, typeof module, typeof exports];
    }
    let leakError = null;
    export async function leak(input, ctx) {
      ctx.invoke('Evil.ok', { n: 1 })
        .then(() => ctx.invoke('Evil.ok', { n: 1 }))
        .catch((e) => { leakError = e.message; if (input.spin) while (true) {} });
      return 'returned';
    }
    export async function lastLeakError() { return leakError; }`,
});
const bystander = pkg('bystander', { 'B.js': 'export async function echo(input) { return input; }' });

describe('sandbox: hostile code', function () {
  this.timeout(10000);
  let t: TestSandbox;
  afterEach(() => t.sandbox.close());

  async function expectRecovered(): Promise<void> {
    expect(await t.run(evil.key, 'Evil.ok', { n: 2 })).to.deep.equal({ ok: 2 });
  }

  for (const [name, fn] of [
    ['a synchronous infinite loop', 'spin'],
    ['an infinite loop after an await', 'spinLater'],
    ['a promise that never settles', 'never'],
    ['Atomics.wait on a buffer nobody signals', 'block'],
  ]) {
    it(`${name} ends with JCT_SANDBOX_TIMEOUT and the next call works`, async () => {
      t = testSandbox([evil], { timeoutMs: 250 });
      const started = Date.now();
      const err = await rejection(t.run(evil.key, `Evil.${fn}`));
      expect(err.code).to.equal('JCT_SANDBOX_TIMEOUT');
      expect(err.statusCode).to.equal(504);
      expect(err.message).to.contain(`evil/Evil.${fn}`).and.contain('250 ms');
      expect(Date.now() - started).to.be.below(2000);
      await expectRecovered();
    });
  }

  it('a memory bomb ends with JCT_SANDBOX_MEMORY and the next call works', async () => {
    t = testSandbox([evil], { memoryLimitMb: 16, timeoutMs: 5000 });
    const err = await rejection(t.run(evil.key, 'Evil.bomb'));
    expect(err.code).to.equal('JCT_SANDBOX_MEMORY');
    expect(err.message).to.contain('evil/Evil.bomb');
    await expectRecovered();
  });

  it('a huge ArrayBuffer fails inside the service without harming the isolate', async () => {
    t = testSandbox([evil]);
    const err = await rejection(t.run(evil.key, 'Evil.bigBuffer'));
    expect(err.code).to.equal('JCT_SERVICE_ERROR');
    await expectRecovered();
  });

  it('process, require and timers do not exist', async () => {
    t = testSandbox([evil]);
    expect(await t.run(evil.key, 'Evil.globals')).to.deep.equal([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
    for (const fn of ['useProcess', 'useRequire', 'timer']) {
      const err = await rejection(t.run(evil.key, `Evil.${fn}`));
      expect(err.code, fn).to.equal('JCT_SERVICE_ERROR');
      expect(err.message, fn).to.match(/is not defined/);
    }
    await expectRecovered();
  });

  it('import() gives nothing, neither of the host nor of the package', async () => {
    t = testSandbox([evil]);
    for (const fn of ['importFs', 'importOwn']) {
      const err = await rejection(t.run(evil.key, `Evil.${fn}`));
      expect(err.code, fn).to.equal('JCT_SERVICE_ERROR');
    }
    await expectRecovered();
  });

  it('constructor chains reach only the isolate', async () => {
    t = testSandbox([evil]);
    for (const fn of ['globalChain', 'ctxChain']) {
      const err = await rejection(t.run(evil.key, `Evil.${fn}`));
      expect(err.message, fn).to.equal('process is not defined');
    }
    expect(await t.run(evil.key, 'Evil.logChain')).to.deep.equal({
      process: 'undefined',
      require: 'undefined',
      keys: [],
    });
    await expectRecovered();
  });

  it('a sloppy getter read by the runtime cannot climb to it through .caller', async () => {
    t = testSandbox([evil], {}, async (_name, args) => args);
    expect(await t.run(evil.key, 'Evil.callerChain')).to.deep.equal({ caller: null });
  });

  it('ctx used after the call ended is refused', async () => {
    t = testSandbox([evil]);
    expect(await t.run(evil.key, 'Evil.leak', {})).to.equal('returned');
    let seen: unknown = null;
    for (let i = 0; i < 1000 && seen === null; i++) seen = await t.run(evil.key, 'Evil.lastLeakError');
    expect(seen).to.contain('after its service call had ended');
  });

  it('a loop started after the call ended is stopped within the time limit', async () => {
    t = testSandbox([evil], { timeoutMs: 300 });
    expect(await t.run(evil.key, 'Evil.leak', { spin: true })).to.equal('returned');
    // The detached continuation spins in the isolate with no call running; the worker resets the
    // isolate, which a fresh module state (leakError back to null) shows.
    const started = Date.now();
    const seen: unknown[] = [];
    while (Date.now() - started < 3000) {
      const state = await t.run(evil.key, 'Evil.lastLeakError').catch((e: { code: string }) => e.code);
      seen.push(state);
      if (state === null && seen.some((s) => typeof s === 'string' && s.startsWith('JCT_'))) break;
    }
    const state = seen[seen.length - 1];
    expect(state).to.equal(null);
    await expectRecovered();
  });

  it('calls of other packages in flight are unaffected by a runaway one', async () => {
    t = testSandbox([evil, bystander], { timeoutMs: 300, threads: 1 });
    const runaway = rejection(t.run(evil.key, 'Evil.spinLater'));
    const others = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.run(bystander.key, 'B.echo', { i })),
    );
    expect(others).to.deep.equal(Array.from({ length: 20 }, (_, i) => ({ i })));
    expect((await runaway).code).to.equal('JCT_SANDBOX_TIMEOUT');
  });

  it('a terminated worker fails only its own calls and is replaced', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiter = pkg('waiter', {
      'W.js': `export async function wait(input, ctx) { await ctx.flux.sendEvent({ event: 'x' }); return input; }`,
    });
    t = testSandbox([waiter], { threads: 2, timeoutMs: 5000 }, () => gate);
    // Ten calls in one turn make two batches, one per worker; each waits on the gate.
    const calls = Array.from({ length: 10 }, (_, i) =>
      t.run(waiter.key, 'W.wait', { i }).then(
        (value) => ({ value }),
        (err: { code: string; message: string }) => ({ code: err.code, message: err.message }),
      ),
    );
    await until(() => t.hostCalls.length === 10);
    await t.sandbox.workers[0]!.terminate();
    release();
    const outcomes = await Promise.all(calls);
    const failed = outcomes.filter((o) => 'code' in o);
    const answered = outcomes.filter((o) => 'value' in o);
    expect(failed.length).to.be.within(1, 9);
    expect(answered.length).to.equal(10 - failed.length);
    for (const f of failed) {
      expect(f).to.have.property('code', 'JCT_SANDBOX_CRASHED');
      expect((f as { message: string }).message).to.contain('worker');
    }
    // The pool replaced the worker: later calls all work.
    const later = await Promise.all(Array.from({ length: 10 }, (_, i) => t.run(waiter.key, 'W.wait', { i })));
    expect(later).to.deep.equal(Array.from({ length: 10 }, (_, i) => ({ i })));
    expect(t.sandbox.workers).to.have.length(2);
  });
});
