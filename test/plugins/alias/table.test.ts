import { expect } from 'chai';
import { pino } from 'pino';
import { ANONYMOUS, type AliasSpec, type PackageSource, type UserRef } from '../../../core/services/types.js';
import type { AccessRule, BearerVerifier } from '../../../plugins/auth/types.js';
import { AliasTable } from '../../../plugins/alias/table.js';

const USERS: Record<string, UserRef> = {
  alice: { username: 'alice', groups: ['administrators'] },
  batch: { username: 'batch', groups: ['jobs'] },
};

/** Only `user` is used at deploy time. */
const verifier: BearerVerifier = {
  authenticate: () => Promise.reject(new Error('not used')),
  require: () => Promise.reject(new Error('not used')),
  allows: (_u: UserRef, _r: AccessRule) => true,
  user: (name) => USERS[name],
};

let deployId = 0;

/** A package version as the registry hands it to hooks (defaults applied, `runAs` only if written). */
function pkg(name: string, aliases: Partial<AliasSpec>[]): PackageSource {
  const specs = aliases.map((a) => ({ secured: false, logToTracker: false, ...a }) as AliasSpec);
  return {
    name,
    version: '1.0.0',
    dir: `/services/${name}`,
    deployId: ++deployId,
    aliases: specs,
    services: ['orders.Api.get', 'orders.Api.list'],
    files: [],
  };
}

function deploy(table: AliasTable, source: PackageSource): void {
  table.commit(source, table.prepare(source));
}

describe('plugins/alias table (deploy hook)', () => {
  let table: AliasTable;
  beforeEach(() => {
    table = new AliasTable(() => verifier, pino({ level: 'silent' }));
  });

  it('serves the aliases of a committed package and forgets them on remove', () => {
    deploy(table, pkg('a', [{ url: '/orders/{id}', service: 'orders.Api.get', method: 'GET' }]));
    expect(table.router.match('GET', ['orders', '1']).kind).to.equal('found');
    table.remove('a');
    expect(table.router.match('GET', ['orders', '1']).kind).to.equal('not-found');
  });

  it("swaps a redeployed package's aliases in one step", () => {
    deploy(table, pkg('a', [{ url: '/old', service: 'orders.Api.get' }]));
    const before = table.router;
    deploy(table, pkg('a', [{ url: '/new', service: 'orders.Api.get' }]));
    expect(before.match('GET', ['old']).kind).to.equal('found');
    expect(table.router.match('GET', ['old']).kind).to.equal('not-found');
    expect(table.router.match('GET', ['new']).kind).to.equal('found');
  });

  it('rejects an alias that conflicts with another package, naming both', () => {
    deploy(table, pkg('first', [{ url: '/orders/{id}', service: 'orders.Api.get', method: 'GET' }]));
    const second = pkg('second', [{ url: '/orders/{orderId}', service: 'orders.Api.get' }]);
    expect(() => table.prepare(second))
      .to.throw(/package "second".*package "first"/)
      .with.property('code', 'JCT_ALIAS_CONFLICT');
    // Different method: no conflict.
    deploy(table, pkg('third', [{ url: '/orders/{id}', service: 'orders.Api.get', method: 'DELETE' }]));
  });

  it("does not count a package's previous version as a conflict", () => {
    const v1 = pkg('a', [{ url: '/orders', service: 'orders.Api.list', method: 'GET' }]);
    deploy(table, v1);
    deploy(table, pkg('a', [{ url: '/orders', service: 'orders.Api.list', method: 'GET' }]));
    expect(table.aliases()).to.have.length(1);
  });

  it('rejects two aliases of one package with the same URL and method', () => {
    const source = pkg('a', [
      { url: '/orders', service: 'orders.Api.list' },
      { url: '/orders', service: 'orders.Api.get', method: 'POST' },
    ]);
    expect(() => table.prepare(source)).to.throw(/conflicts with its own alias/);
  });

  it('rejects a service the package does not export, and malformed URLs and methods', () => {
    expect(() => table.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.missing' }]))).to.throw(
      /package "a", alias 1 \(\* \/x\): service "orders.Api.missing" is not exported/,
    );
    expect(() => table.prepare(pkg('a', [{ url: '/x/{a}{b}', service: 'orders.Api.get' }]))).to.throw(
      /whole segment/,
    );
    expect(() =>
      table.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get', method: 'BREW' }])),
    ).to.throw(/"method" must be one of/);
    // Another package's service is resolved at call time.
    expect(() => table.prepare(pkg('a', [{ url: '/x', service: 'other/orders.Api.nope' }]))).not.to.throw();
  });

  it('resolves runAs users at deploy time and rejects unknown ones', () => {
    const [batch] = table.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get', runAs: 'batch' }]));
    expect(batch!.runAs).to.deep.equal(USERS.batch);
    expect(() =>
      table.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get', runAs: 'mallory' }])),
    ).to.throw(/unknown user "mallory"/);
  });

  it('runs a secured alias without runAs as its caller, and one with runAs: Anonymous as Anonymous', () => {
    const [caller, anonymous] = table.prepare(
      pkg('a', [
        { url: '/a', service: 'orders.Api.get', secured: true },
        { url: '/b', service: 'orders.Api.get', secured: true, runAs: 'Anonymous' },
      ]),
    );
    expect(caller!.runAs).to.equal(undefined);
    expect(anonymous!.runAs).to.equal(ANONYMOUS);
  });

  it('needs a token for users or groups even without secured, and refuses security without auth', () => {
    const [alias] = table.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get', groups: ['sales'] }]));
    expect(alias!.needsToken).to.equal(true);
    expect(alias!.rule).to.deep.equal({ groups: ['sales'] });
    const noAuth = new AliasTable(() => undefined, pino({ level: 'silent' }));
    expect(() =>
      noAuth.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get', secured: true }])),
    ).to.throw(/auth plugin is not loaded/);
    expect(() => noAuth.prepare(pkg('a', [{ url: '/x', service: 'orders.Api.get' }]))).not.to.throw();
  });

  it('defaults the document type to "URL Alias"', () => {
    const [plain, typed] = table.prepare(
      pkg('a', [
        { url: '/x', service: 'orders.Api.get', logToTracker: true },
        { url: '/y', service: 'orders.Api.get', logToTracker: true, documentType: 'OrderLookup' },
      ]),
    );
    expect(plain!.documentType).to.equal('URL Alias');
    expect(typed!.documentType).to.equal('OrderLookup');
  });
});
