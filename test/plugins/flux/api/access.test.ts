import { expect } from 'chai';
import type { Junction } from '../../../../core/app.js';
import { bearer, expectError, fluxApp } from './fixture.js';

describe('plugins/flux/api: access', () => {
  let app: Junction | undefined;
  let tokens: { fiona: string; sam: string };
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  const execute = (fluxName: string, headers: Record<string, string> = {}) =>
    app!.inject({ method: 'POST', url: '/flux-api/orders/execute', payload: { fluxName }, headers });

  describe('a workflow with access', () => {
    let payroll: number;
    beforeEach(async () => {
      ({ app, tokens } = await fluxApp());
      payroll = (await execute('secure.Payroll', bearer(tokens.fiona))).json().contextId;
      expect(payroll).to.be.a('number');
    });

    it('needs a token of a user in its groups to execute: 401 without, 403 with the wrong one', async () => {
      const none = await execute('secure.Payroll');
      expectError(none, 401, 'JCT_UNAUTHORIZED');
      expect(none.headers['www-authenticate']).to.match(/^Bearer/);
      expectError(await execute('secure.Payroll', bearer(tokens.sam)), 403, 'JCT_FORBIDDEN');
      expect((await execute('secure.Payroll', bearer(tokens.fiona))).statusCode).to.equal(200);
    });

    it('guards every operation on its contexts', async () => {
      const ops = [
        { method: 'GET', url: `/flux-api/context?contextId=${payroll}` },
        { method: 'GET', url: `/flux-api/context/state?contextId=${payroll}&stateName=wait` },
        { method: 'GET', url: `/flux-api/definition?contextId=${payroll}` },
        { method: 'GET', url: '/flux-api/definition?fluxName=secure.Payroll' },
        { method: 'POST', url: `/flux-api/context/tag?contextId=${payroll}&tag=x` },
        { method: 'PUT', url: `/flux-api/context/tag?contextId=${payroll}&tag=x` },
        { method: 'DELETE', url: `/flux-api/context/tag?contextId=${payroll}&tag=x` },
        { method: 'POST', url: `/flux-api/event?contextId=${payroll}`, payload: { event: 'nothing' } },
        { method: 'DELETE', url: `/flux-api/terminate?contextId=${payroll}` },
      ] as const;
      for (const op of ops) {
        const label = `${op.method} ${op.url}`;
        expect((await app!.inject(op)).statusCode, label).to.equal(401);
        expect((await app!.inject({ ...op, headers: bearer(tokens.sam) })).statusCode, label).to.equal(403);
        expect((await app!.inject({ ...op, headers: bearer(tokens.fiona) })).statusCode, label).to.equal(200);
      }
    });

    it('hides its contexts from a listing by a caller who may not read them', async () => {
      const open = (await execute('approval.OrderApproval')).json().contextId;
      const ids = async (headers: Record<string, string> = {}) =>
        ((await app!.inject({ url: '/flux-api/contexts', headers })).json() as { id: number }[]).map(
          (c) => c.id,
        );
      expect(await ids()).to.deep.equal([open]);
      expect(await ids(bearer(tokens.sam))).to.deep.equal([open]);
      expect(await ids(bearer(tokens.fiona))).to.deep.equal([open, payroll]);
    });
  });

  it('judges execute and broadcasts by the workflow of the named package, not one of the same name', async () => {
    // `aaa` sorts first and has an open workflow of the same name as orders' protected one.
    const open = `
states:
  - name: wait
    transitions:
      - { event: pay, to: paid }
  - name: paid
`;
    ({ app, tokens } = await fluxApp({ packages: { aaa: { 'secure/Payroll': open } } }));
    const run = (pkg: string, headers: Record<string, string> = {}) =>
      app!.inject({
        method: 'POST',
        url: `/flux-api/${pkg}/execute`,
        payload: { fluxName: 'secure.Payroll' },
        headers,
      });
    const opened = (await run('aaa')).json().contextId;
    expect(opened).to.be.a('number');
    expectError(await run('orders'), 401, 'JCT_UNAUTHORIZED');
    expectError(await run('orders', bearer(tokens.sam)), 403, 'JCT_FORBIDDEN');
    const secured = (await run('orders', bearer(tokens.fiona))).json().contextId;
    expect(secured).to.be.a('number');
    // An anonymous broadcast reaches aaa's open context only, not orders' protected one.
    const pay = await app.inject({ method: 'POST', url: '/flux-api/event', payload: { event: 'pay' } });
    expect(pay.statusCode).to.equal(200);
    expect(pay.json().transitions).to.deep.equal([{ contextId: opened, state: 'paid' }]);
    const secure = await app.inject({
      url: `/flux-api/context?contextId=${secured}`,
      headers: bearer(tokens.fiona),
    });
    expect(secure.json().currentState).to.equal('wait');
  });

  describe('a broadcast event', () => {
    // An open workflow waiting on `pay` beside orders' protected secure.Payroll, and a protected
    // workflow that `pay` triggers.
    const packages = {
      aaa: {
        'open/Till': `
states:
  - name: wait
    transitions:
      - { event: pay, to: paid }
  - name: paid
`,
        'secure/OnPay': `
triggers: [pay]
access: { groups: [finance] }
states:
  - name: booked
`,
      },
    };
    let till: number;
    let payroll: number;
    beforeEach(async () => {
      ({ app, tokens } = await fluxApp({ packages }));
      const run = async (pkg: string, fluxName: string) =>
        (
          await app!.inject({
            method: 'POST',
            url: `/flux-api/${pkg}/execute`,
            payload: { fluxName },
            headers: bearer(tokens.fiona),
          })
        ).json().contextId as number;
      till = await run('aaa', 'open.Till');
      payroll = await run('orders', 'secure.Payroll');
    });
    const pay = (headers: Record<string, string> = {}) =>
      app!.inject({ method: 'POST', url: '/flux-api/event', payload: { event: 'pay' }, headers });
    const stateOf = async (id: number) =>
      (await app!.inject({ url: `/flux-api/context?contextId=${id}`, headers: bearer(tokens.fiona) })).json()
        .currentState;

    it('from an anonymous caller moves the open context and leaves the protected one waiting', async () => {
      const res = await pay();
      expect(res.statusCode).to.equal(200);
      expect(res.json().transitions).to.deep.equal([{ contextId: till, state: 'paid' }]);
      expect(res.json().executions).to.deep.equal([]);
      expect(await stateOf(till)).to.equal('paid');
      expect(await stateOf(payroll)).to.equal('wait');
    });

    it('from a user outside the groups skips the protected workflows too', async () => {
      const res = await pay(bearer(tokens.sam));
      expect(res.statusCode).to.equal(200);
      expect(res.json().transitions).to.deep.equal([{ contextId: till, state: 'paid' }]);
      expect(res.json().executions).to.deep.equal([]);
      expect(await stateOf(payroll)).to.equal('wait');
    });

    it('from a user of the right group moves both and starts the protected trigger', async () => {
      const res = await pay(bearer(tokens.fiona));
      expect(res.statusCode).to.equal(200);
      expect(res.json().transitions).to.deep.equal([
        { contextId: till, state: 'paid' },
        { contextId: payroll, state: 'paid' },
      ]);
      expect(res.json().executions).to.have.length(1);
      expect(res.json().executions[0].state).to.equal('booked');
      expect(await stateOf(payroll)).to.equal('paid');
    });

    it('still answers an invalid token with 401', async () => {
      expectError(await pay(bearer('forged')), 401, 'JCT_AUTH_INVALID_TOKEN');
      expect(await stateOf(till)).to.equal('wait');
    });
  });

  it('answers an invalid token with 401 even where no token is needed', async () => {
    ({ app, tokens } = await fluxApp());
    const res = await execute('approval.OrderApproval', bearer('forged'));
    expectError(res, 401, 'JCT_AUTH_INVALID_TOKEN');
    expect(res.headers['www-authenticate']).to.contain('invalid_token');
    expectError(
      await app.inject({ url: '/flux-api/contexts', headers: bearer('forged') }),
      401,
      'JCT_AUTH_INVALID_TOKEN',
    );
  });

  it('with flux.require-auth, needs a token for every call', async () => {
    ({ app, tokens } = await fluxApp({ config: { flux: { 'require-auth': true } } }));
    expectError(await execute('approval.OrderApproval'), 401, 'JCT_UNAUTHORIZED');
    expectError(await app.inject('/flux-api/contexts'), 401, 'JCT_UNAUTHORIZED');
    expectError(
      await app.inject('/flux-api/definition?fluxName=approval.OrderApproval'),
      401,
      'JCT_UNAUTHORIZED',
    );
    expectError(
      await app.inject({ method: 'POST', url: '/flux-api/event', payload: { event: 'x' } }),
      401,
      'JCT_UNAUTHORIZED',
    );
    const ok = await execute('approval.OrderApproval', bearer(tokens.sam));
    expect(ok.statusCode).to.equal(200);
    expect(
      (await app.inject({ url: '/flux-api/contexts', headers: bearer(tokens.sam) })).json(),
    ).to.have.length(1);
  });

  describe('without the auth plugin', () => {
    it('serves anonymous callers, refuses tokens it cannot check and workflows with access', async () => {
      ({ app, tokens } = await fluxApp({ auth: false }));
      expect((await execute('approval.OrderApproval')).statusCode).to.equal(200);
      expectError(await execute('approval.OrderApproval', bearer(tokens.fiona)), 401, 'JCT_UNAUTHORIZED');
      expectError(await execute('secure.Payroll'), 401, 'JCT_UNAUTHORIZED');
    });

    it('refuses to start with flux.require-auth', async () => {
      let error: Error | undefined;
      try {
        ({ app, tokens } = await fluxApp({ auth: false, config: { flux: { 'require-auth': true } } }));
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.contain('require-auth').and.contain('auth plugin');
    });
  });
});
