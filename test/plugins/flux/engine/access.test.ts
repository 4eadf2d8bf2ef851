import { expect } from 'chai';
import { satisfiesRule } from '../../../../plugins/flux/engine/access-rule.js';
import { flux, harness, type Harness } from './harness.js';

// Both wait for `pay`; Payroll also starts on `pay.run`, as does the open Till.
const TILL = `
triggers: [pay.run]
states:
  - name: wait
    transitions:
      - { event: pay, to: paid }
  - name: paid
`;
const PAYROLL = `
triggers: [pay.run]
access: { groups: [finance] }
states:
  - name: wait
    transitions:
      - { event: pay, to: paid }
  - name: paid
`;

const fiona = { username: 'fiona', groups: ['finance'] };
const sam = { username: 'sam', groups: ['sales'] };

describe('flux engine: who a broadcast reaches', () => {
  let h: Harness;
  let till: number;
  let payroll: number;
  beforeEach(async () => {
    h = await harness();
    await h.services.deploy('shop', { ...flux('Till', TILL), ...flux('Payroll', PAYROLL) }, []);
    till = (await h.engine.execute({ packageName: 'shop', fluxName: 'Till' })).contextId;
    payroll = (await h.engine.execute({ packageName: 'shop', fluxName: 'Payroll', user: fiona })).contextId;
  });
  afterEach(async () => {
    await h.engine.stop();
  });

  const stateOf = async (id: number) => (await h.engine.getContext(id))!.currentState;

  for (const [who, user] of [
    ['an anonymous sender', undefined],
    ['a user outside the groups', sam],
  ] as const) {
    it(`from ${who}: moves and starts only open workflows, skipping the protected ones`, async () => {
      const moved = await h.engine.sendEvent({ event: 'pay', ...(user ? { user } : {}) });
      expect(moved.transitions).to.deep.equal([{ contextId: till, state: 'paid' }]);
      expect(await stateOf(payroll)).to.equal('wait');
      const started = await h.engine.sendEvent({ event: 'pay.run', ...(user ? { user } : {}) });
      const flows = await Promise.all(
        started.executions.map(async (e) => (await h.engine.getContext(e.contextId))!.fluxName),
      );
      expect(flows).to.deep.equal(['Till']);
    });
  }

  it('from a user the rule allows: reaches and starts both', async () => {
    const moved = await h.engine.sendEvent({ event: 'pay', user: fiona });
    expect(moved.transitions).to.deep.equal([
      { contextId: till, state: 'paid' },
      { contextId: payroll, state: 'paid' },
    ]);
    const started = await h.engine.sendEvent({ event: 'pay.run', user: fiona });
    expect(started.executions).to.have.length(2);
  });

  it('with tags: the same rule', async () => {
    await h.engine.addTags(till, ['march']);
    await h.engine.addTags(payroll, ['march']);
    const moved = await h.engine.sendEvent({ event: 'pay', tags: ['march'] });
    expect(moved.transitions).to.deep.equal([{ contextId: till, state: 'paid' }]);
    expect(await stateOf(payroll)).to.equal('wait');
  });

  it('by contextId: left to the caller (the API checks the context rule first)', async () => {
    const moved = await h.engine.sendEvent({ event: 'pay', contextId: payroll });
    expect(moved.transitions).to.deep.equal([{ contextId: payroll, state: 'paid' }]);
  });

  it('satisfiesRule: users and groups must both hold when given; empty lists restrict nothing', () => {
    expect(satisfiesRule(undefined, {})).to.equal(false);
    expect(satisfiesRule(sam, {})).to.equal(true);
    expect(satisfiesRule(fiona, { groups: ['finance'] })).to.equal(true);
    expect(satisfiesRule(sam, { groups: ['finance'] })).to.equal(false);
    expect(satisfiesRule(fiona, { users: ['fiona'], groups: ['sales'] })).to.equal(false);
    expect(satisfiesRule(fiona, { users: [], groups: [] })).to.equal(true);
  });
});
