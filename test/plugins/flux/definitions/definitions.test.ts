import { expect } from 'chai';
import { compileDefinition, fluxNameOf } from '../../../../plugins/flux/definitions/compile.js';
import { addDuration, parseDuration } from '../../../../plugins/flux/definitions/duration.js';
import { FakeServices, flux, harness } from '../engine/harness.js';

const compileErrors = (yaml: string, services: string[] = ['A.b']) =>
  compileDefinition('pkg', 'flux/approval/Order.flux.yaml', yamlDoc(yaml), services).errors;

// A tiny YAML subset is not worth it: js-yaml is what the engine uses.
import { load } from 'js-yaml';
const yamlDoc = (yaml: string) => load(yaml);

describe('flux definitions', () => {
  it('names a workflow by its path under flux/', () => {
    expect(fluxNameOf('flux/approval/OrderApproval.flux.yaml')).to.equal('approval.OrderApproval');
    expect(fluxNameOf('flux/Top.flux.yaml')).to.equal('Top');
  });

  it('parses ISO-8601 durations and rejects anything else', () => {
    expect(parseDuration('PT24H')).to.deep.equal({ years: 0, months: 0, ms: 86_400_000 });
    expect(parseDuration('P1DT0.5S')).to.deep.equal({ years: 0, months: 0, ms: 86_400_500 });
    expect(parseDuration('P2W')!.ms).to.equal(14 * 86_400_000);
    expect(parseDuration('P1Y2M')).to.deep.equal({ years: 1, months: 2, ms: 0 });
    for (const bad of ['', 'P', 'PT', '24H', 'PT1H30', 'P1H', 'PT-1S', 'soon'])
      expect(parseDuration(bad), bad).to.equal(undefined);
    const jan31 = Date.UTC(2026, 0, 31);
    expect(addDuration(jan31, parseDuration('P1M')!)).to.equal(Date.UTC(2026, 2, 3));
  });

  it('accepts the full format', () => {
    const errors = compileErrors(`
comment: c
triggers: [t]
access: { groups: [sales], users: [ann] }
states:
  - name: s
    displayName: S
    x: 1
    y: 2
    comment: first
    input: []
    output: [{ name: valid, type: boolean }]
    action:
      type: invokeCode
      className: A
      methodName: b
      parameters: [object]
      inputs: [{ type: set, expression: "vars.x", evaluate: true, to: [x] }]
    transitions:
      - { to: s, condition: "vars.x" }
      - { event: e, to: s }
      - { event: $else, to: s }
      - { event: $exception, to: s }
      - { after: PT1M, to: s }
      - { at: "vars.t", to: s }
      - { cron: "*/5 * * * *", to: s }
`);
    expect(errors).to.deep.equal([]);
  });

  it('reports every problem, naming the file and the state', () => {
    const errors = compileErrors(`
states:
  - name: a
    action: { type: invokeCode, className: A }
    transitions:
      - { to: nowhere }
      - { after: 24h, to: a }
      - { cron: "61 * * * *", to: a }
      - { event: go, after: PT1H, to: a }
      - { event: $weird, to: a }
      - { event: $else, to: a, condition: "true" }
  - name: a
  - name: b
    action: { type: invokeService }
  - name: c
    action: { type: invokeCode, className: Other, methodName: x }
  - name: d
    action: { type: teleport }
    transitions: [{ to: a, colour: red }]
`);
    const f = 'flux/approval/Order.flux.yaml';
    expect(errors).to.include(`${f}: state "a": duplicate state name`);
    expect(errors).to.include(`${f}: state "a": action: invokeCode needs \`methodName\``);
    expect(errors).to.include(`${f}: state "a": transition #1: \`to\` names unknown state "nowhere"`);
    expect(errors).to.include(`${f}: state "a": transition #2: \`after\` "24h" is not an ISO-8601 duration`);
    expect(
      errors.some((e) => e.startsWith(`${f}: state "a": transition #3: \`cron\` "61 * * * *" is invalid`)),
    ).to.equal(true);
    expect(errors).to.include(`${f}: state "a": transition #4: has both event and after`);
    expect(errors).to.include(
      `${f}: state "a": transition #5: unknown special event "$weird" (only $else and $exception)`,
    );
    expect(errors).to.include(`${f}: state "a": transition #6: a $else transition takes no \`condition\``);
    expect(errors).to.include(`${f}: state "b": action: invokeService needs \`service\``);
    expect(errors).to.include(`${f}: state "c": action: service "Other.x" is not in this package`);
    expect(errors).to.include(`${f}: state "d": action: \`type\` must be invokeCode, invokeService or none`);
    expect(errors).to.include(`${f}: state "d": transition #1: unknown key "colour"`);
    expect(compileErrors('states: []')).to.deep.equal([`${f}: \`states\` must be a non-empty list`]);
  });

  it('fails a deploy with JCT_FLUX_DEFINITION_INVALID listing every file, and keeps the previous version live', async () => {
    const services = new FakeServices();
    const h = await harness({ services, packages: { p: flux('Good', 'states:\n  - name: only\n') } });
    const failure = await services
      .deploy('p', {
        ...flux('Good', 'states:\n  - name: only\n    transitions: [{ to: gone }]\n'),
        ...flux('sub/Broken', 'states: [:\n'),
      })
      .catch((e: any) => e);
    expect(failure.code).to.equal('JCT_FLUX_DEFINITION_INVALID');
    expect(failure.message).to.contain(
      'flux/Good.flux.yaml: state "only": transition #1: `to` names unknown state "gone"',
    );
    expect(failure.message).to.contain('flux/sub/Broken.flux.yaml: invalid YAML');
    const ref = await h.engine.execute({ packageName: 'p', fluxName: 'Good' });
    expect(ref.state).to.equal('only');
    await h.engine.stop();
  });
});
