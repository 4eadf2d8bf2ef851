import { expect } from 'chai';
import { FakeSandbox } from './fake-sandbox.js';
import { manifest, servicesApp, writePackage, type ServicesApp } from './helpers.js';

describe('core/services GET /packages', () => {
  let app: ServicesApp;
  beforeEach(async () => {
    const fake = new FakeSandbox();
    app = await servicesApp({ sandbox: (h) => fake.bind(h), start: false });
    writePackage(app.config.servicesDir, 'orders', {
      'package.yaml': manifest(
        'orders',
        '1.2.0',
        '  - url: /orders/{id}\n    service: approval.Checks.lookup\n    method: GET\n    groups: [sales]\n',
      ),
      'code/approval/Checks.js': 'export async function lookup(input) {}',
      'flux/approval/OrderApproval.flux.yaml': 'states: []',
    });
    writePackage(app.config.servicesDir, 'broken', {
      'package.yaml': 'name: broken\nversion: "1"\nextra: 1\n',
    });
    await app.start({ listen: false });
  });
  afterEach(() => app.stop());

  it('lists deployed and failed packages with services, aliases, workflows and errors', async () => {
    const res = await app.inject('/packages');
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({
      packages: [
        {
          name: 'broken',
          version: null,
          status: 'failed',
          services: [],
          aliases: [],
          workflows: [],
          errors: ['broken/package.yaml: extra: unknown key'],
          deployedAt: null,
        },
        {
          name: 'orders',
          version: '1.2.0',
          status: 'deployed',
          services: ['approval.Checks.lookup'],
          aliases: [
            {
              url: '/orders/{id}',
              service: 'approval.Checks.lookup',
              method: 'GET',
              groups: ['sales'],
              secured: false,
              logToTracker: false,
            },
          ],
          workflows: ['approval.OrderApproval'],
          errors: [],
          deployedAt: new Date(app.clock.now()).toISOString(),
        },
      ],
    });
  });

  it('shows one package, 404 JCT_PACKAGE_NOT_FOUND for an unknown one, XML on request', async () => {
    const one = await app.inject('/packages/orders');
    expect(one.statusCode).to.equal(200);
    expect(one.json()).to.deep.include({ name: 'orders', status: 'deployed' });
    const missing = await app.inject('/packages/nope');
    expect(missing.statusCode).to.equal(404);
    expect(missing.json()).to.deep.equal({
      message: 'package nope is not deployed',
      code: 'JCT_PACKAGE_NOT_FOUND',
    });
    const xml = await app.inject({ url: '/packages', headers: { accept: 'application/xml' } });
    expect(xml.statusCode).to.equal(200);
    expect(xml.body).to.include('<name>orders</name>');
  });

  it('documents the route in /openapi.json', async () => {
    const spec = (await app.inject('/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(spec.paths).to.have.property('/packages');
    expect(spec.paths).to.have.property('/packages/{name}');
  });
});
