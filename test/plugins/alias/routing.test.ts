import { expect } from 'chai';
import { aliasApp, type AliasTestApp } from './fixture.js';
import { ORDERS } from './packages.js';

describe('plugins/alias: routing, input and output', () => {
  let app: AliasTestApp;
  before(async () => {
    app = await aliasApp({ packages: { orders: ORDERS } });
  });
  after(() => app.stop());

  describe('routing', () => {
    it('serves an alias under /api with its path variables', async () => {
      const res = await app.inject('/api/orders/42');
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.json()).to.deep.equal({ id: '42', input: { id: '42' }, user: 'Anonymous' });
      const lines = await app.inject({ method: 'DELETE', url: '/api/orders/a%20b/lines/7' });
      expect(lines.json().input).to.deep.equal({ id: 'a b', line: '7' });
    });

    it('accepts any method when the alias names none', async () => {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const res = await app.inject({ method, url: '/api/echo' });
        expect(res.statusCode, `${method} ${res.body}`).to.equal(200);
      }
    });

    it('answers 405 with Allow for a known URL and another method', async () => {
      const res = await app.inject({ method: 'DELETE', url: '/api/orders/42' });
      expect(res.statusCode).to.equal(405);
      expect(res.headers.allow).to.equal('GET, HEAD');
      expect(res.json()).to.deep.equal({
        message: '/api/orders/42 does not accept DELETE',
        code: 'JCT_METHOD_NOT_ALLOWED',
      });
      const post = await app.inject({ method: 'GET', url: '/api/orders' });
      expect(post.statusCode).to.equal(405);
      expect(post.headers.allow).to.equal('POST');
    });

    it('answers 404 for a URL no alias serves', async () => {
      for (const url of ['/api/nothing-here', '/api/orders/1/lines', '/api', '/api/']) {
        const res = await app.inject(url);
        expect(res.statusCode, url).to.equal(404);
        expect(res.json().code).to.equal('JCT_NOT_FOUND');
      }
    });

    it('answers 400 for a path that is not valid percent-encoding', async () => {
      const res = await app.inject('/api/orders/%E0%A4%A');
      expect(res.statusCode).to.equal(400);
    });
  });

  describe('input', () => {
    it('merges query parameters (repeated ones as arrays) with path variables', async () => {
      const res = await app.inject('/api/orders/9/lines/1?verbose=true&tag=a&tag=b&id=overridden');
      expect(res.json().input).to.deep.equal({ id: '9', line: '1', verbose: 'true', tag: ['a', 'b'] });
    });

    it('merges the fields of a JSON body', async () => {
      const res = await app.inject({
        method: 'PUT',
        url: '/api/echo?from=query&both=query',
        payload: { both: 'body', nested: { a: [1, 2] } },
      });
      expect(res.json().input).to.deep.equal({ from: 'query', both: 'body', nested: { a: [1, 2] } });
    });

    it('merges the fields of a form body', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/echo',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=Ada&tag=x&tag=y',
      });
      expect(res.json().input).to.deep.equal({ name: 'Ada', tag: ['x', 'y'] });
    });

    it('passes on only the inputs `parameters` names', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/orders?tag=t&debug=1',
        payload: { customer: 'c1', qty: 2, admin: true },
      });
      expect(res.json().input).to.deep.equal({ tag: 't', customer: 'c1', qty: 2 });
    });

    it('refuses a JSON body that is not an object, and malformed JSON', async () => {
      const array = await app.inject({ method: 'POST', url: '/api/echo', payload: [1, 2] });
      expect(array.statusCode).to.equal(400);
      expect(array.json().code).to.equal('JCT_ALIAS_BODY_NOT_OBJECT');
      const broken = await app.inject({
        method: 'POST',
        url: '/api/echo',
        headers: { 'content-type': 'application/json' },
        payload: '{"a":',
      });
      expect(broken.statusCode).to.equal(400);
      expect(broken.json().code).to.equal('JCT_BAD_JSON');
      const text = await app.inject({
        method: 'POST',
        url: '/api/echo',
        headers: { 'content-type': 'text/plain' },
        payload: 'hi',
      });
      expect(text.statusCode).to.equal(415);
      expect(text.json().code).to.equal('JCT_UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('output', () => {
    it('answers the return value as JSON, strings and nothing included', async () => {
      const text = await app.inject('/api/text');
      expect(text.headers['content-type']).to.match(/^application\/json/);
      expect(text.body).to.equal('"plain text"');
      const nothing = await app.inject('/api/nothing');
      expect(nothing.statusCode).to.equal(200);
      expect(nothing.body).to.equal('null');
    });

    it('answers XML when Accept prefers it', async () => {
      const res = await app.inject({ url: '/api/orders/7?x=1', headers: { accept: 'application/xml' } });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/xml/);
      expect(res.body).to.contain('<response><id>7</id><input>');
      const text = await app.inject({ url: '/api/text', headers: { accept: 'text/xml' } });
      expect(text.body).to.contain('<response>plain text</response>');
      const error = await app.inject({ url: '/api/fail?status=404', headers: { accept: 'application/xml' } });
      expect(error.statusCode).to.equal(404);
      expect(error.body).to.contain('<error><message>failed with 404</message>');
    });

    it('answers a thrown status with {message, code}', async () => {
      const coded = await app.inject('/api/fail?status=404&code=ORDER_MISSING');
      expect(coded.statusCode).to.equal(404);
      expect(coded.json()).to.deep.equal({ message: 'failed with 404', code: 'ORDER_MISSING' });
      const uncoded = await app.inject('/api/fail?status=422');
      expect(uncoded.statusCode).to.equal(422);
      expect(uncoded.json()).to.deep.equal({ message: 'failed with 422', code: 'JCT_SERVICE_ERROR' });
    });

    it('answers any other throw 500 with a message and no stack', async () => {
      for (const kind of ['plain', 'type']) {
        const res = await app.inject(`/api/fail?kind=${kind}`);
        expect(res.statusCode).to.equal(500);
        const body = res.json();
        expect(Object.keys(body).sort()).to.deep.equal(['code', 'message']);
        expect(body.message).to.be.a('string').and.not.empty;
        expect(res.body).not.to.match(/\bat\s|Orders\.js:\d/);
      }
      expect((await app.inject('/api/fail?kind=plain')).json().message).to.contain('plain failure');
    });
  });
});
