import { expect } from 'chai';
import type { DeployHook, PackageSource } from '../../../core/services/types.js';
import type { JunctionPlugin } from '../../../core/plugins/types.js';
import { FakeSandbox } from './fake-sandbox.js';
import { manifest, servicesApp, writePackage, type ServicesApp } from './helpers.js';

const checks = 'export async function validate(input) { return input; }\nexport function lookup() {}\n';

/** A plugin whose deploy hook records what it saw and rejects packages named `rejected`. */
function recordingPlugin(log: string[], seen: PackageSource[]): JunctionPlugin {
  const hook: DeployHook<string> = {
    name: 'recorder',
    files: { dir: 'flux', suffix: '.flux.yaml' },
    prepare(pkg) {
      seen.push(pkg);
      log.push(`prepare ${pkg.name}@${pkg.deployId}`);
      if (pkg.name === 'rejected') throw new Error('workflow flux/Bad.flux.yaml: no states');
      return `prepared ${pkg.name}`;
    },
    commit(pkg, prepared) {
      log.push(`commit ${pkg.name}@${pkg.deployId} ${prepared}`);
    },
    remove(name) {
      log.push(`remove ${name}`);
    },
  };
  return { name: 'recorder', register: (app) => app.services.addDeployHook(hook as DeployHook) };
}

describe('core/services loading', () => {
  let app: ServicesApp | undefined;
  let fake: FakeSandbox;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  async function start(files: Record<string, Record<string, string>>, plugins: JunctionPlugin[] = []) {
    fake = new FakeSandbox();
    app = await servicesApp({ sandbox: (h) => fake.bind(h), start: false, plugins });
    for (const [name, content] of Object.entries(files)) writePackage(app.config.servicesDir, name, content);
    await app.start({ listen: false });
    return app;
  }

  it('names services after module paths and workflows after flux paths', async () => {
    await start({
      orders: {
        'package.yaml': manifest(
          'orders',
          '1.2.0',
          '  - url: /orders/{id}\n    service: approval.Checks.lookup\n',
        ),
        'code/approval/Checks.js': checks,
        'code/Top.js':
          'export const notAService = 1;\nexport default function main() {}\nexport function run() {}',
        'code/README.txt': 'not a module',
        'flux/approval/OrderApproval.flux.yaml': 'states: []',
        'flux/Other.flux.yaml': 'states: []',
        '.hidden/x.js': 'export function hidden() {}',
      },
    });
    const [info] = app!.services.packages();
    expect(info).to.deep.include({
      name: 'orders',
      version: '1.2.0',
      status: 'deployed',
      services: ['Top.run', 'approval.Checks.lookup', 'approval.Checks.validate'],
      workflows: ['Other', 'approval.OrderApproval'],
      errors: [],
      deployedAt: new Date(app!.clock.now()).toISOString(),
    });
    expect(info!.aliases).to.deep.equal([
      {
        url: '/orders/{id}',
        service: 'approval.Checks.lookup',
        secured: false,
        logToTracker: false,
      },
    ]);
    expect(app!.services.hasPackage('orders')).to.equal(true);
  });

  it('reports each kind of load error and still deploys the other packages', async () => {
    await start({
      good: { 'package.yaml': manifest('good'), 'code/A.js': checks },
      badyaml: { 'package.yaml': 'name: badyaml\nversion: [1\n' },
      unknownkey: { 'package.yaml': 'name: unknownkey\nversion: "1"\nowner: me\n' },
      mismatch: { 'package.yaml': manifest('other') },
      nomanifest: { 'code/A.js': checks },
      syntax: { 'package.yaml': manifest('syntax'), 'code/A.js': 'export function x( { FAKE_SYNTAX_ERROR' },
      missing: {
        'package.yaml': manifest(
          'missing',
          '1',
          '  - url: /a\n    service: A.nope\n  - url: /b\n    service: B.x\n',
        ),
        'code/A.js': checks,
      },
      badname: { 'package.yaml': manifest('badname'), 'code/my-module.js': checks },
      'bad name': { 'package.yaml': manifest('x') },
    });
    const byName = Object.fromEntries(app!.services.packages().map((p) => [p.name, p]));
    expect(byName.good!.status).to.equal('deployed');
    const failed = (name: string) => {
      expect(byName[name]!.status, name).to.equal('failed');
      expect(byName[name]!.services, name).to.deep.equal([]);
      return byName[name]!.errors.join('\n');
    };
    expect(failed('badyaml')).to.match(
      /^badyaml\/package\.yaml: YAML syntax error at line \d+, column \d+: /,
    );
    expect(failed('unknownkey')).to.equal('unknownkey/package.yaml: owner: unknown key');
    expect(failed('mismatch')).to.equal(
      'mismatch/package.yaml: name: "other" must be the folder\'s name ("mismatch")',
    );
    expect(failed('nomanifest')).to.equal('nomanifest/package.yaml: missing');
    expect(failed('syntax')).to.equal('syntax: A.js: SyntaxError: Unexpected token');
    expect(failed('missing')).to.equal(
      'missing/package.yaml: aliases[0].service: A.nope: module code/A.js exports no function "nope"\n' +
        'missing/package.yaml: aliases[1].service: B.x: no module code/B.js',
    );
    expect(failed('badname')).to.match(
      /^badname\/code\/my-module\.js: every folder and the module file name/,
    );
    expect(failed('bad name')).to.match(/^bad name: the folder name must be a package name/);
    expect(byName.unknownkey!.version).to.equal(null);
    // Content that failed to load is not reloaded until it changes.
    const inspected = fake.inspected.length;
    await app!.services.rescan();
    expect(fake.inspected.length).to.equal(inspected);
    expect(app!.services.info('syntax')!.errors).to.have.length(1);
    expect(byName.missing!.version).to.equal('1');
    // A version that did not go live leaves nothing cached in the sandbox.
    expect(fake.forgotten).to.include.members([
      'syntax@' + fake.inspected.find((k) => k.startsWith('syntax@'))!.split('@')[1],
    ]);
  });

  it('gives deploy hooks the files they asked for, commits after every prepare, and removes on undeploy', async () => {
    const log: string[] = [];
    const seen: PackageSource[] = [];
    await start(
      {
        wf: {
          'package.yaml': manifest('wf'),
          'code/A.js': checks,
          'flux/sub/Flow.flux.yaml': 'comment: hi\n',
          'flux/notes.txt': 'ignored',
        },
        rejected: { 'package.yaml': manifest('rejected'), 'flux/Bad.flux.yaml': 'states: []' },
      },
      [recordingPlugin(log, seen)],
    );
    const wf = seen.find((s) => s.name === 'wf')!;
    expect(wf.files).to.deep.equal([{ path: 'flux/sub/Flow.flux.yaml', text: 'comment: hi\n' }]);
    expect(wf.services).to.deep.equal(['A.lookup', 'A.validate']);
    expect(wf.dir).to.equal(`${app!.config.servicesDir}/wf`);
    expect(log.filter((l) => l.startsWith('commit'))).to.deep.equal([`commit wf@${wf.deployId} prepared wf`]);
    const rejected = app!.services.packages().find((p) => p.name === 'rejected')!;
    expect(rejected.status).to.equal('failed');
    expect(rejected.errors).to.deep.equal(['rejected: recorder: workflow flux/Bad.flux.yaml: no states']);
    expect(app!.services.hasPackage('rejected')).to.equal(false);

    // A refused package is retried on a rescan even unchanged (what refused it may have changed);
    // a deployed one is not redeployed.
    const prepares = () => log.filter((l) => l.startsWith('prepare')).length;
    const before = prepares();
    await app!.services.rescan();
    expect(log.slice(-1)[0]).to.match(/^prepare rejected@/);
    expect(prepares()).to.equal(before + 1);

    const { rmSync } = await import('node:fs');
    rmSync(`${app!.config.servicesDir}/wf`, { recursive: true });
    await app!.services.rescan();
    expect(log.at(-1)).to.equal('remove wf');
    expect(app!.services.packages().map((p) => p.name)).to.deep.equal(['rejected']);
  });

  it('check() returns every problem and deploys nothing', async () => {
    const log: string[] = [];
    fake = new FakeSandbox();
    app = await servicesApp({
      sandbox: (h) => fake.bind(h),
      start: false,
      plugins: [recordingPlugin(log, [])],
    });
    writePackage(app.config.servicesDir, 'ok', { 'package.yaml': manifest('ok'), 'code/A.js': checks });
    writePackage(app.config.servicesDir, 'rejected', { 'package.yaml': manifest('rejected') });
    writePackage(app.config.servicesDir, 'broken', { 'package.yaml': 'name: broken\n' });
    const problems = await app.check();
    expect(problems).to.deep.equal([
      'broken/package.yaml: version: missing required key',
      'rejected: recorder: workflow flux/Bad.flux.yaml: no states',
    ]);
    expect(log.some((l) => l.startsWith('commit'))).to.equal(false);
    expect(fake.closed).to.equal(true);
    app = undefined;
  });
});
