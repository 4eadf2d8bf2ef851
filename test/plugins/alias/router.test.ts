import { expect } from 'chai';
import { parsePattern, splitRequestPath } from '../../../plugins/alias/pattern.js';
import { AliasRouter, findConflict, type RouteEntry } from '../../../plugins/alias/router.js';

function entry(
  url: string,
  method: string | undefined,
  target = `${method ?? '*'} ${url}`,
): RouteEntry<string> {
  return { pattern: parsePattern(url), method, target };
}

function match(router: AliasRouter<string>, method: string, path: string) {
  return router.match(method, splitRequestPath(path)!);
}

describe('plugins/alias router', () => {
  describe('patterns', () => {
    it('parses static segments and path variables', () => {
      const p = parsePattern('/orders/{id}/lines/{line}');
      expect(p.segments).to.deep.equal([
        { kind: 'static', value: 'orders' },
        { kind: 'variable', name: 'id' },
        { kind: 'static', value: 'lines' },
        { kind: 'variable', name: 'line' },
      ]);
      expect(p.shape).to.equal('/orders/{}/lines/{}');
    });

    it('ignores a trailing slash and gives variables of any name the same shape', () => {
      expect(parsePattern('/orders/').url).to.equal('/orders');
      expect(parsePattern('/orders/{id}').shape).to.equal(parsePattern('/orders/{orderId}/').shape);
      expect(parsePattern('/').segments).to.deep.equal([]);
    });

    it('rejects malformed patterns with a reason', () => {
      expect(() => parsePattern('orders')).to.throw(/must start with "\/"/);
      expect(() => parsePattern('/a//b')).to.throw(/empty segment/);
      expect(() => parsePattern('/a/{id}/{id}')).to.throw(/appears twice/);
      expect(() => parsePattern('/a/x{id}')).to.throw(/whole segment/);
      expect(() => parsePattern('/a?b=1')).to.throw(/query/);
      expect(() => parsePattern('/a b')).to.throw(/not allowed/);
    });

    it('decodes request segments and refuses bad percent-encoding', () => {
      expect(splitRequestPath('a%20b/c/')).to.deep.equal(['a b', 'c']);
      expect(splitRequestPath('')).to.deep.equal([]);
      expect(splitRequestPath('a/%E0%A4%A')).to.equal(undefined);
    });
  });

  describe('matching', () => {
    const router = new AliasRouter([
      entry('/orders', 'GET'),
      entry('/orders', 'POST'),
      entry('/orders/{id}', 'GET'),
      entry('/orders/new', 'GET'),
      entry('/orders/{id}/lines/{line}', undefined),
      entry('/', 'GET', 'root'),
      entry('/ping', undefined, 'ping'),
    ]);

    it('binds path variables by name', () => {
      expect(match(router, 'GET', 'orders/42')).to.deep.equal({
        kind: 'found',
        target: 'GET /orders/{id}',
        params: { id: '42' },
      });
      expect(match(router, 'DELETE', 'orders/7/lines/a%2Fb')).to.deep.equal({
        kind: 'found',
        target: '* /orders/{id}/lines/{line}',
        params: { id: '7', line: 'a/b' },
      });
    });

    it('prefers a static segment over a variable', () => {
      expect(match(router, 'GET', 'orders/new')).to.include({ target: 'GET /orders/new' });
    });

    it('matches the method, and any method when the alias has none', () => {
      expect(match(router, 'POST', 'orders')).to.include({ target: 'POST /orders' });
      for (const m of ['GET', 'PUT', 'PATCH', 'OPTIONS'])
        expect(match(router, m, 'ping')).to.include({ target: 'ping' });
      expect(match(router, 'GET', '')).to.include({ target: 'root' });
    });

    it('serves HEAD with a GET alias', () => {
      expect(match(router, 'HEAD', 'orders/1')).to.include({ target: 'GET /orders/{id}' });
    });

    it('answers method-not-allowed with the methods the URL accepts', () => {
      expect(match(router, 'DELETE', 'orders')).to.deep.equal({
        kind: 'method-not-allowed',
        allow: ['GET', 'HEAD', 'POST'],
      });
      expect(match(router, 'PUT', 'orders/new')).to.deep.equal({
        kind: 'method-not-allowed',
        allow: ['GET', 'HEAD'],
      });
    });

    it('answers not-found for unknown URLs', () => {
      expect(match(router, 'GET', 'customers')).to.deep.equal({ kind: 'not-found' });
      expect(match(router, 'GET', 'orders/1/lines')).to.deep.equal({ kind: 'not-found' });
      expect(match(router, 'GET', 'orders/1/lines/2/x')).to.deep.equal({ kind: 'not-found' });
    });

    it('never binds an empty segment to a variable', () => {
      expect(router.match('GET', ['orders', ''])).to.deep.equal({ kind: 'not-found' });
    });
  });

  describe('conflicts', () => {
    const existing = [entry('/orders/{id}', 'GET'), entry('/customers', undefined)];

    it('same shape and method conflict, whatever the variable names', () => {
      expect(findConflict(existing, entry('/orders/{orderId}', 'GET'))?.target).to.equal('GET /orders/{id}');
    });

    it('an unset method overlaps every method', () => {
      expect(findConflict(existing, entry('/orders/{x}', undefined))).to.exist;
      expect(findConflict(existing, entry('/customers', 'POST'))).to.exist;
    });

    it('different methods or shapes do not conflict', () => {
      expect(findConflict(existing, entry('/orders/{id}', 'POST'))).to.equal(undefined);
      expect(findConflict(existing, entry('/orders/new', 'GET'))).to.equal(undefined);
    });
  });
});
