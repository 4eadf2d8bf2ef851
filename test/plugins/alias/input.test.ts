import { expect } from 'chai';
import { mergeInput } from '../../../plugins/alias/input.js';

describe('plugins/alias input merge', () => {
  it('merges path variables, query parameters and body fields', () => {
    const input = mergeInput({ id: '42' }, { verbose: 'true', tag: ['a', 'b'] }, { qty: 3 }, undefined);
    expect({ ...input }).to.deep.equal({ id: '42', verbose: 'true', tag: ['a', 'b'], qty: 3 });
  });

  it('lets the body win over the query and path variables win over both', () => {
    const input = mergeInput(
      { id: 'path' },
      { id: 'query', x: 'query' },
      { id: 'body', x: 'body' },
      undefined,
    );
    expect({ ...input }).to.deep.equal({ id: 'path', x: 'body' });
  });

  it('keeps only the inputs `parameters` names', () => {
    const input = mergeInput(
      { id: '1', other: 'p' },
      { verbose: '1', debug: '1' },
      { secret: 's' },
      new Set(['id', 'verbose']),
    );
    expect({ ...input }).to.deep.equal({ id: '1', verbose: '1' });
  });

  it('passes nothing on with an empty `parameters`', () => {
    expect({ ...mergeInput({ id: '1' }, { q: '1' }, { b: 1 }, new Set()) }).to.deep.equal({});
  });

  it('treats __proto__ as an ordinary field name', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const input = mergeInput({}, {}, body, undefined);
    expect(Object.keys(input)).to.deep.equal(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('refuses a body that is not an object, saying what it is', () => {
    expect(() => mergeInput({}, {}, [1, 2], undefined)).to.throw(/not an array/);
    expect(() => mergeInput({}, {}, 'text', undefined)).to.throw(/not a string/);
    expect(() => mergeInput({}, {}, null, undefined)).to.throw(/not null/);
    try {
      mergeInput({}, {}, 5, undefined);
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.include({ code: 'JCT_ALIAS_BODY_NOT_OBJECT', statusCode: 400 });
    }
  });

  it('takes no body at all (GET)', () => {
    expect({ ...mergeInput({ a: '1' }, {}, undefined, undefined) }).to.deep.equal({ a: '1' });
  });
});
