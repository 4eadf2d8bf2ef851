import { expect } from 'chai';
import { pkg, rejection, testSandbox, type TestSandbox } from './fixtures.js';

describe('sandbox: package modules', () => {
  let t: TestSandbox;
  afterEach(() => t.sandbox.close());

  const orders = pkg('orders', {
    'lib/money.js': `export const cents = (n) => Math.round(n * 100);`,
    'lib/format.js': `import { cents } from './money.js'; export function label(n) { return cents(n) + ' cents'; }`,
    'approval/Checks.js': `
      import { label } from '../lib/format.js';
      import * as money from '../lib/money';
      export const VERSION = 3;
      export async function validate(input) { return { label: label(input.total), raw: money.cents(input.total) }; }
      export function helper() { return 1; }`,
  });

  it('links imports between modules of the package (relative, with and without .js)', async () => {
    t = testSandbox([orders]);
    expect(await t.run(orders.key, 'approval.Checks.validate', { total: 1.5 })).to.deep.equal({
      label: '150 cents',
      raw: 150,
    });
  });

  it('inspect lists the exported functions of every module', async () => {
    t = testSandbox([]);
    const exports = await t.sandbox.inspect(orders);
    expect(exports).to.deep.equal([
      { path: 'lib/money.js', functions: ['cents'] },
      { path: 'lib/format.js', functions: ['label'] },
      { path: 'approval/Checks.js', functions: ['helper', 'validate'] },
    ]);
  });

  for (const [what, specifier] of [
    ['a bare package name', 'lodash'],
    ['a node: builtin', 'node:fs'],
    ['a path escaping the package', '../../secret.js'],
    ['an absolute path', '/etc/passwd'],
    ['a module the package lacks', './missing.js'],
  ]) {
    it(`inspect rejects an import of ${what}, naming the module`, async () => {
      t = testSandbox([]);
      const bad = pkg('bad', { 'a/B.js': `import x from '${specifier}'; export function f() { return x; }` });
      const err = await rejection(t.sandbox.inspect(bad));
      expect(err.code).to.equal('JCT_PACKAGE_INVALID');
      expect(err.statusCode).to.equal(400);
      expect(err.message).to.contain('a/B.js').and.contain(specifier);
    });
  }

  it('inspect rejects a syntax error naming the module', async () => {
    t = testSandbox([]);
    const bad = pkg('bad', {
      'ok.js': 'export const a = 1;',
      'broken/Thing.js': 'export function f( { return 1 }',
    });
    const err = await rejection(t.sandbox.inspect(bad));
    expect(err.code).to.equal('JCT_PACKAGE_INVALID');
    expect(err.message).to.contain('broken/Thing.js').and.contain('SyntaxError');
  });

  it('inspect rejects a module that throws at top level, naming it', async () => {
    t = testSandbox([]);
    const bad = pkg('bad', { 'Boom.js': 'throw new Error("kaboom"); export function f() {}' });
    const err = await rejection(t.sandbox.inspect(bad));
    expect(err.code).to.equal('JCT_PACKAGE_INVALID');
    expect(err.message).to.contain('Boom.js').and.contain('kaboom');
  });

  it('a module that loops at top level fails the load with JCT_SANDBOX_TIMEOUT naming it', async () => {
    t = testSandbox([], { timeoutMs: 200 });
    const endless = pkg('endless', { 'Loop.js': 'while (true) {}\nexport function f() {}' });
    const err = await rejection(t.sandbox.inspect(endless));
    expect(err.code).to.equal('JCT_SANDBOX_TIMEOUT');
    expect(err.message).to.contain('Loop.js').and.contain('200 ms');
  });

  it('a module that exhausts memory at top level fails the load with JCT_SANDBOX_MEMORY', async () => {
    t = testSandbox([]);
    const hog = pkg('hog', {
      'Hog.js': "const keep = []; while (true) keep.push('x'.repeat(1024) + Math.random());",
    });
    const err = await rejection(t.sandbox.inspect(hog));
    expect(err.code).to.equal('JCT_SANDBOX_MEMORY');
    expect(err.message).to.contain('hog');
  });

  it('a call on a broken package fails with JCT_PACKAGE_INVALID, and on an unknown version with JCT_SANDBOX_NOT_DEPLOYED', async () => {
    const bad = pkg('bad', { 'a/B.js': `import fs from 'node:fs'; export function f() { return 1; }` });
    t = testSandbox([bad]);
    expect((await rejection(t.run(bad.key, 'a.B.f'))).code).to.equal('JCT_PACKAGE_INVALID');
    const missing = await rejection(t.run('gone@9', 'a.B.f'));
    expect(missing.code).to.equal('JCT_SANDBOX_NOT_DEPLOYED');
    expect(missing.statusCode).to.equal(404);
  });

  it('an unknown module or function is JCT_SANDBOX_NO_FUNCTION, and the package still works', async () => {
    t = testSandbox([orders]);
    expect((await rejection(t.run(orders.key, 'approval.Checks.nope'))).code).to.equal(
      'JCT_SANDBOX_NO_FUNCTION',
    );
    expect((await rejection(t.run(orders.key, 'approval.Nope.validate'))).code).to.equal(
      'JCT_SANDBOX_NO_FUNCTION',
    );
    expect((await rejection(t.run(orders.key, 'approval.Checks.VERSION'))).code).to.equal(
      'JCT_SANDBOX_NO_FUNCTION',
    );
    expect(await t.run(orders.key, 'approval.Checks.helper')).to.equal(1);
  });

  describe('evaluate', () => {
    it('evaluates expressions with the scope members as variables', async () => {
      t = testSandbox([orders]);
      const results = await t.sandbox.evaluate({
        key: orders.key,
        expressions: [
          'vars.total > 100',
          'vars.items.map((i) => i * 2)',
          'event.name + "!"',
          'output',
          'undefined',
        ],
        scope: { vars: { total: 150, items: [1, 2] }, event: { name: 'approve' }, output: null },
      });
      expect(results).to.deep.equal([true, [2, 4], 'approve!', null, null]);
    });

    it('rejects a throwing or malformed expression naming it', async () => {
      t = testSandbox([orders]);
      const thrown = await rejection(
        t.sandbox.evaluate({ key: orders.key, expressions: ['1', 'vars.missing.deep'], scope: { vars: {} } }),
      );
      expect(thrown.code).to.equal('JCT_SANDBOX_EXPRESSION');
      expect(thrown.message).to.contain('vars.missing.deep').and.contain('TypeError');
      const malformed = await rejection(
        t.sandbox.evaluate({ key: orders.key, expressions: ['vars.('], scope: {} }),
      );
      expect(malformed.code).to.equal('JCT_SANDBOX_EXPRESSION');
      expect(malformed.message).to.contain('vars.(');
    });

    it('an expression that loops forever times out and the next evaluation works', async () => {
      t = testSandbox([orders], { timeoutMs: 200 });
      const err = await rejection(
        t.sandbox.evaluate({ key: orders.key, expressions: ['(() => { for (;;) {} })()'], scope: {} }),
      );
      expect(err.code).to.equal('JCT_SANDBOX_TIMEOUT');
      expect(await t.sandbox.evaluate({ key: orders.key, expressions: ['1 + 1'], scope: {} })).to.deep.equal([
        2,
      ]);
    });
  });
});
