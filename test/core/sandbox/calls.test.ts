import { expect } from 'chai';
import { pkg, rejection, testSandbox, until, USER, type TestSandbox } from './fixtures.js';

const demo = pkg('demo', {
  'Echo.js': `
    export async function echo(input) { return input; }
    export async function mutate(input) { input.added = true; return input; }
    export async function nothing() {}
    export async function fn() { return () => 1; }
    export async function circular() { const a = {}; a.self = a; return a; }
    export async function whoami(input, ctx) { return { user: ctx.user, package: ctx.package }; }
    export async function logs(input, ctx) {
      ctx.log.info('hello', { n: 1 });
      ctx.log.warn('careful');
      ctx.log.error(new TypeError('bad thing'));
      return 'logged';
    }
    export async function fail(input) {
      const err = new Error('order ' + input.id + ' not found');
      if (input.status !== undefined) err.status = input.status;
      if (input.code !== undefined) err.code = input.code;
      throw err;
    }
    export async function throwString() { throw 'just a string'; }
    export async function slow(input) { let x = 0; for (let i = 0; i < 100000; i++) x += i; return input; }`,
  'Nest.js': `
    export async function down(input, ctx) {
      if (input.n === 0) return { depth: 'bottom' };
      const inner = await ctx.invoke('Nest.down', { n: input.n - 1 });
      return { n: input.n, inner };
    }
    export async function other(input, ctx) { return ctx.invoke('tools/Util.twice', { v: 21 }); }
    export async function catchMissing(input, ctx) {
      try { await ctx.invoke('demo/Nope.x', {}); } catch (e) { return { caught: e.message, code: e.code, status: e.status }; }
    }
    export async function send(input, ctx) {
      return ctx.flux.sendEvent({ event: 'approve', input: { ok: true }, tags: ['t1'], contextId: 'c1' });
    }
    export async function sendFails(input, ctx) {
      try { await ctx.flux.sendEvent({ event: 'boom' }); } catch (e) { return 'caught ' + e.message; }
    }`,
});
const tools = pkg('tools', {
  'Util.js': 'export async function twice(input, ctx) { return { v: input.v * 2, by: ctx.package }; }',
});

describe('sandbox: calls', () => {
  let t: TestSandbox;
  afterEach(() => t.sandbox.close());

  it('echoes JSON input and output as copies', async () => {
    t = testSandbox([demo]);
    const input = { a: 1, nested: { list: [1, 'two', null, true] } };
    const out = (await t.run(demo.key, 'Echo.mutate', input)) as Record<string, unknown>;
    expect(out).to.deep.equal({ ...input, added: true });
    expect(input).to.not.have.property('added');
    expect(out.nested).to.not.equal(input.nested);
  });

  it('undefined becomes null; a non-JSON return value is a service error', async () => {
    t = testSandbox([demo]);
    expect(await t.run(demo.key, 'Echo.nothing')).to.equal(null);
    const call = { key: demo.key, module: 'Echo.js', fn: 'echo', input: undefined, user: USER, depth: 0 };
    expect(await t.sandbox.call(call)).to.equal(null);
    const fn = await rejection(t.run(demo.key, 'Echo.fn'));
    expect(fn.code).to.equal('JCT_SERVICE_ERROR');
    expect(fn.message).to.contain('not JSON-serializable');
    expect((await rejection(t.run(demo.key, 'Echo.circular'))).code).to.equal('JCT_SERVICE_ERROR');
  });

  it('rejects a non-serializable input before it reaches a worker', async () => {
    t = testSandbox([demo]);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const err = await rejection(t.run(demo.key, 'Echo.echo', circular));
    expect(err.code).to.equal('JCT_SANDBOX_INPUT');
    expect(err.statusCode).to.equal(400);
  });

  it('a thrown error keeps its message, numeric status and string code', async () => {
    t = testSandbox([demo]);
    const plain = await rejection(t.run(demo.key, 'Echo.fail', { id: 7 }));
    expect(plain).to.include({ code: 'JCT_SERVICE_ERROR', statusCode: 500, message: 'order 7 not found' });
    const notFound = await rejection(
      t.run(demo.key, 'Echo.fail', { id: 8, status: 404, code: 'ORDER_NOT_FOUND' }),
    );
    expect(notFound).to.include({ code: 'ORDER_NOT_FOUND', statusCode: 404, message: 'order 8 not found' });
    const bogusStatus = await rejection(t.run(demo.key, 'Echo.fail', { id: 9, status: 200, code: 42 }));
    expect(bogusStatus).to.include({ code: 'JCT_SERVICE_ERROR', statusCode: 500 });
    const str = await rejection(t.run(demo.key, 'Echo.throwString'));
    expect(str).to.include({ code: 'JCT_SERVICE_ERROR', message: 'just a string' });
  });

  it('ctx.user and ctx.package', async () => {
    t = testSandbox([demo]);
    expect(await t.run(demo.key, 'Echo.whoami', {}, { username: 'bob', groups: ['a', 'b'] })).to.deep.equal({
      user: { username: 'bob', groups: ['a', 'b'] },
      package: 'demo',
    });
  });

  it('ctx.log lines reach the host with level, package and user', async () => {
    t = testSandbox([demo]);
    expect(await t.run(demo.key, 'Echo.logs')).to.equal('logged');
    // Log lines are fire-and-forget; they arrive before or right after the answer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.logs).to.deep.equal([
      { level: 'info', message: 'hello {"n":1}', package: 'demo', user: USER },
      { level: 'warn', message: 'careful', package: 'demo', user: USER },
      { level: 'error', message: 'TypeError: bad thing', package: 'demo', user: USER },
    ]);
  });

  it('ctx.invoke nests through the host, across packages, up to maxInvokeDepth', async () => {
    t = testSandbox([demo, tools], { maxInvokeDepth: 3 });
    expect(await t.run(demo.key, 'Nest.down', { n: 3 })).to.deep.equal({
      n: 3,
      inner: { n: 2, inner: { n: 1, inner: { depth: 'bottom' } } },
    });
    expect(await t.run(demo.key, 'Nest.other')).to.deep.equal({ v: 42, by: 'tools' });
    const tooDeep = await rejection(t.run(demo.key, 'Nest.down', { n: 4 }));
    expect(tooDeep.code).to.equal('JCT_SANDBOX_INVOKE_DEPTH');
    expect(tooDeep.message).to.contain('Nest.down').and.contain('3');
  });

  it('a host error arrives in the isolate as a catchable exception with code and status', async () => {
    t = testSandbox([demo]);
    expect(await t.run(demo.key, 'Nest.catchMissing')).to.deep.equal({
      caught: 'package demo: no module Nope.js',
      code: 'JCT_SANDBOX_NO_FUNCTION',
      status: 404,
    });
  });

  it('ctx.flux.sendEvent calls the host function flux.sendEvent with the caller', async () => {
    t = testSandbox([demo], {}, async (name, args) => {
      if ((args as { event: string }).event === 'boom') throw new Error('no such event');
      return { delivered: 1, name };
    });
    expect(await t.run(demo.key, 'Nest.send')).to.deep.equal({ delivered: 1, name: 'flux.sendEvent' });
    expect(t.hostCalls[0]).to.deep.equal({
      name: 'flux.sendEvent',
      args: { event: 'approve', input: { ok: true }, tags: ['t1'], contextId: 'c1' },
      package: 'demo',
    });
    expect(await t.run(demo.key, 'Nest.sendFails')).to.equal('caught no such event');
  });

  it('50 concurrent calls each get their own answer (two threads)', async () => {
    t = testSandbox([demo], { threads: 2 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.run(demo.key, i % 2 ? 'Echo.echo' : 'Echo.slow', { i })),
    );
    expect(answers).to.deep.equal(Array.from({ length: 50 }, (_, i) => ({ i })));
  });

  it('calls batched together are answered one by one: a slow one does not hold back the others', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    t = testSandbox([demo], {}, () => gate.then(() => 'opened'));
    const answered: string[] = [];
    // Submitted in one turn: one batch, one entry into the isolate.
    const slow = t.run(demo.key, 'Nest.send').then((v) => answered.push(`slow:${String(v)}`));
    const fast = Array.from({ length: 10 }, (_, i) =>
      t.run(demo.key, 'Echo.echo', { i }).then(() => answered.push(`fast:${i}`)),
    );
    await Promise.all(fast);
    expect(answered).to.have.length(10);
    open();
    await slow;
    expect(answered[10]).to.equal('slow:opened');
  });

  it('forget while a call runs lets it finish; the version is then gone from the workers', async () => {
    const v1 = pkg('slowpoke', {
      'S.js': `export async function wait(input, ctx) {
        ctx.log.info('started');
        await ctx.invoke('tools/Util.twice', { v: 1 });
        let x = 0; for (let i = 0; i < 2e6; i++) x += i;
        return 'done';
      }`,
    });
    t = testSandbox([v1, tools]);
    const running = t.run(v1.key, 'S.wait');
    await until(() => t.logs.length > 0);
    t.sandbox.forget(v1.key);
    t.packages.delete(v1.key);
    expect(await running).to.equal('done');
    // Forgotten: the worker dropped the isolate and the host no longer has the code.
    const after = await rejection(t.run(v1.key, 'S.wait'));
    expect(after.code).to.equal('JCT_SANDBOX_NOT_DEPLOYED');
  });

  it('a warm call reuses the isolate: modules are evaluated once per worker', async () => {
    const counter = pkg('counter', {
      'C.js':
        'let evaluations = 0; evaluations++; let calls = 0; export function count() { calls++; return { evaluations, calls }; }',
    });
    t = testSandbox([counter]);
    for (let i = 1; i <= 5; i++)
      expect(await t.run(counter.key, 'C.count')).to.deep.equal({ evaluations: 1, calls: i });
  });

  it('forget drops the version in the workers (a later call starts from fresh module state)', async () => {
    const counter = pkg('counter', { 'C.js': 'let calls = 0; export function count() { return ++calls; }' });
    t = testSandbox([counter]);
    expect(await t.run(counter.key, 'C.count')).to.equal(1);
    expect(await t.run(counter.key, 'C.count')).to.equal(2);
    t.sandbox.forget(counter.key);
    // The forget message and the next task travel on different channels: poll until it landed.
    const deadline = Date.now() + 3000;
    let count: unknown;
    do count = await t.run(counter.key, 'C.count');
    while (count !== 1 && Date.now() < deadline);
    expect(count).to.equal(1);
  });

  it('a new version of a package runs its new code', async () => {
    const v1 = pkg('ver', { 'V.js': 'export function v() { return 1; }' }, 1);
    const v2 = pkg('ver', { 'V.js': 'export function v() { return 2; }' }, 2);
    t = testSandbox([v1]);
    expect(await t.run(v1.key, 'V.v')).to.equal(1);
    t.packages.set(v2.key, v2);
    t.sandbox.forget(v1.key);
    expect(await t.run(v2.key, 'V.v')).to.equal(2);
  });

  it('checks its options up front, naming the bad one', () => {
    t = testSandbox([demo]);
    const bad = (options: Record<string, number>) => () => testSandbox([demo], options);
    expect(bad({ threads: 0 })).to.throw(/sandbox\.threads/);
    expect(bad({ memoryLimitMb: 4 })).to.throw(/sandbox\.memoryLimitMb must be an integer of at least 8/);
    expect(bad({ timeoutMs: 1.5 })).to.throw(/sandbox\.timeoutMs/);
  });

  it('rejects calls after close with JCT_SANDBOX_CLOSED', async () => {
    t = testSandbox([demo]);
    await t.sandbox.close();
    expect((await rejection(t.run(demo.key, 'Echo.echo'))).code).to.equal('JCT_SANDBOX_CLOSED');
  });
});
